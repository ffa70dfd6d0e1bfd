"""Verification e-mail delivered over real SMTP (an aiosmtpd server on a free local port)."""

import email
import email.policy
import re

import pytest
from aiosmtpd.controller import Controller

from plumbline.config import settings
from tests.identity.helpers import sign_up
from tests.live import free_port


class Collector:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content or b""))
        return "250 OK"


@pytest.fixture
def smtp(monkeypatch):
    collector = Collector()
    controller = Controller(collector, hostname="127.0.0.1", port=free_port())
    controller.start()
    monkeypatch.setattr(settings, "smtp_url", f"smtp://127.0.0.1:{controller.port}")
    yield collector
    controller.stop()


async def test_sign_up_sends_the_verification_email_over_smtp(client, smtp):
    response, address = await sign_up(client)
    assert response.status_code == 200
    [(recipients, raw)] = [m for m in smtp.messages if address in m[0]]
    assert recipients == [address]
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message["Subject"] == "Verify your e-mail address"
    text = message.get_body(preferencelist=("plain",)).get_content()
    link = re.search(r"https?://\S+", text).group(0)
    assert link.startswith(f"{settings.public_url}/account/verify-email?token=")
    verified = await client.get("/api/auth/verify-email?" + link.split("?", 1)[1])
    assert verified.status_code == 200 and verified.json() == {"status": True}
