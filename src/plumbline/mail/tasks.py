"""The ``mail.send`` job: e-mails written in the request's transaction, delivered after it."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import UnitOfWork
from plumbline.jobs import enqueue, task
from plumbline.jobs.registry import Payload
from plumbline.kit.mail import Mail, deliver


def queue(uow: UnitOfWork, mail: Mail) -> None:
    """Send the e-mail once the request commits, after its response (so how long delivery
    takes never shows in a response time: a password reset answers as fast for any address)."""
    enqueue(uow, "mail.send", mail.to_payload())


def _headers_only(payload: Payload) -> Payload:
    # Bodies carry one-time links (verification, password reset, invites): once delivered or
    # given up, only who was written to and about what stays in the database.
    return {"to": payload.get("to", []), "subject": payload.get("subject")}


@task("mail.send", keep=_headers_only)
async def send(db: AsyncSession, payload: Payload) -> None:
    await deliver(Mail.from_payload(payload))
