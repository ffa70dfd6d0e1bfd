"""The ``mail.send`` job: e-mails written in the request's transaction, delivered after it."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import UnitOfWork
from plumbline.jobs import Permanent, enqueue, task
from plumbline.jobs.registry import Payload
from plumbline.kit.mail import Mail, Undeliverable, deliver


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
    """Deliver one queued e-mail. One that can never go out fails its job at once; a refusal
    for now (4xx, no connection) is retried with the job's backoff."""
    try:
        await deliver(Mail.from_payload(payload))
    except Undeliverable as exc:
        raise Permanent(str(exc)) from exc
