"""The ``mail.send`` job: retried with backoff, and no one-time link left in the database."""

from __future__ import annotations

import email
import email.policy
import re
import socket
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Job
from tests.factories import create_user, link_in, mail_jobs_to, read_mails

CRON = {"x-service-cron-secret": "test-cron-secret"}


class Flaky:
    """An SMTP server that answers "try again later" to the first ``failures`` messages to
    ``address``, and accepts everything else (mail other tests left due in the same database)."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.address = ""
        self.received: list[bytes] = []
        self.refused: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if envelope.rcpt_tos != [self.address]:
            return "250 OK"
        if self.failures > 0:
            self.failures -= 1
            self.refused.append(envelope.original_content or b"")
            return "451 4.3.0 Mailbox busy, try again later"
        self.received.append(envelope.original_content or b"")
        return "250 OK"


@pytest.fixture
def flaky_smtp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Flaky]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    handler = Flaky(failures=2)
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setattr(settings, "smtp_url", f"smtp://127.0.0.1:{port}")
    yield handler
    controller.stop()


async def _request_reset(client: httpx.AsyncClient, address: str) -> None:
    response = await client.post("/api/auth/request-password-reset", json={"email": address})
    assert response.status_code == 200, response.text


async def test_a_delivery_that_fails_twice_is_retried_with_backoff(client, flaky_smtp) -> None:  # type: ignore[no-untyped-def]
    start = clock.now()
    clock.set_now(start)
    user = await create_user()
    flaky_smtp.address = user.user.email
    await _request_reset(client, user.user.email)  # first attempt, after the response: refused
    [job] = await mail_jobs_to(user.user.email)
    assert (job.status, job.attempts, job.run_at) == ("queued", 1, start + timedelta(seconds=30))
    assert "Mailbox busy" in (job.last_error or "")

    clock.set_now(start + timedelta(seconds=20))  # not due yet: maintenance leaves it alone
    assert (await client.post("/api/v1/internal/maintenance", headers=CRON)).status_code == 200
    [job] = await mail_jobs_to(user.user.email)
    assert job.attempts == 1

    second = start + timedelta(seconds=31)
    clock.set_now(second)
    await client.post("/api/v1/internal/maintenance", headers=CRON)  # refused again
    [job] = await mail_jobs_to(user.user.email)
    assert (job.status, job.attempts, job.run_at) == ("queued", 2, second + timedelta(minutes=1))

    clock.set_now(second + timedelta(minutes=1))
    response = await client.post("/api/v1/internal/maintenance", headers=CRON)
    assert response.json()["dueJobs"] >= 1
    [job] = await mail_jobs_to(user.user.email)
    assert (job.status, job.attempts) == ("done", 3)
    assert [(e["attempt"], "Mailbox busy" in e["error"]) for e in job.errors] == [
        (1, True),
        (2, True),
    ]
    [raw] = flaky_smtp.received
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message["To"] == user.user.email and message["Subject"] == "Reset your password"
    # Every attempt sent the same Message-ID: a receiver can tell a repeat from a new message.
    attempts = [
        email.message_from_bytes(r, policy=email.policy.default) for r in flaky_smtp.refused
    ]
    assert [m["Message-ID"] for m in attempts] == [message["Message-ID"]] * 2
    assert message["Message-ID"].endswith("@plumbline.local>")


async def test_delivered_mail_keeps_no_token_and_is_purged_after_retention(client, outbox) -> None:  # type: ignore[no-untyped-def]
    start = clock.now()
    clock.set_now(start)
    user = await create_user()
    await _request_reset(client, user.user.email)
    [mail] = read_mails(outbox, to=user.user.email)
    token = re.search(r"token=([^&\s]+)", link_in(mail)).group(1)  # type: ignore[union-attr]

    async with database.sessionmaker() as db:  # every column of every job row, as stored
        rows = (await db.execute(select(Job.__table__))).all()
    assert rows and not [row for row in rows if token in repr(tuple(row))]
    [job] = await mail_jobs_to(user.user.email)
    assert job.status == "done"
    assert job.payload == {"to": [user.user.email], "subject": "Reset your password"}
    # The token was a live one: the link still resets the password.
    reset = await client.post(
        "/api/auth/reset-password", json={"token": token, "newPassword": "An0ther-Passw0rd!"}
    )
    assert reset.status_code == 200, reset.text

    retention = timedelta(days=settings.jobs_retention_days)
    clock.set_now(start + retention - timedelta(hours=1))
    assert (await client.post("/api/v1/internal/maintenance", headers=CRON)).status_code == 200
    assert [j.id for j in await mail_jobs_to(user.user.email)] == [job.id]
    clock.set_now(start + retention + timedelta(hours=1))
    assert (await client.post("/api/v1/internal/maintenance", headers=CRON)).status_code == 200
    assert await mail_jobs_to(user.user.email) == []
