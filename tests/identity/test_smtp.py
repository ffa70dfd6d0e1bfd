"""Verification e-mail delivered over real SMTP (an aiosmtpd server on a free local port)."""

import email
import email.policy
import re

import pytest

from plumbline.config import settings
from tests.factories import SmtpSink
from tests.identity.helpers import sign_up


@pytest.fixture
def smtp(monkeypatch):
    with SmtpSink() as sink:
        monkeypatch.setattr(settings, "smtp_url", sink.url)
        yield sink


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
