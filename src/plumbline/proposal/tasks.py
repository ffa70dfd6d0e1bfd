"""Proposal tasks: the daily reminder of proposals about to expire, and their expiry."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as
from plumbline.jobs.registry import Payload, task, unit_of_work
from plumbline.kit import clock
from plumbline.mail.tasks import queue
from plumbline.notification.service import notification
from plumbline.proposal import mails
from plumbline.proposal import repository as flow
from plumbline.proposal.read import ENTITY

WINDOW = timedelta(hours=48)
EXPIRING = "EXPIRING"


@task("proposals.remind_expiring", daily="proposal-reminders")
async def remind_expiring(db: AsyncSession, payload: Payload) -> dict[str, Any]:
    """Daily (the scheduler, ``/internal/proposal-reminders``, ``plumbline digests run``):
    senders of proposals expiring within 48 hours are reminded once per proposal; SENT and
    VIEWED proposals past ``validUntil`` are marked EXPIRED. Answers this run's counts.

    Safe to replay and to run concurrently: a reminder is sent only by the transaction whose
    insert of its ``proposal_reminders`` row (primary key: proposal and kind) went in, in the same
    transaction as the e-mail and the notification; the expiry is one conditional UPDATE."""
    uow, now = unit_of_work(db), clock.now()
    expired = await flow.expire_past_due(db, now)
    for row in expired:
        await audit_as(
            db,
            "system",
            (ENTITY, row.id),
            "proposal.expired",
            {"status": [None, "EXPIRED"]},
            workspace_id=row.workspace_id,
            project_id=row.project_id,
        )
    claimed = await flow.claim_reminders(
        db, await flow.expiring(db, now, now + WINDOW), EXPIRING, now
    )
    rows = await flow.reminder_rows(db, claimed) if claimed else []
    for row in rows:
        queue(
            uow,
            mails.expiring(
                to=row.email,
                name=row.user_name,
                reference=row.reference,
                title=row.title,
                client=row.client_name,
                valid_until=row.valid_until,
            ),
        )
        await notification.notify(
            db,
            [row.user_id],
            kind="PROPOSAL_EXPIRING",
            title=f"Proposal {row.reference} expires within 48 hours",
            href=f"/projects/{row.project_id}/proposals/{row.id}",
            workspace_id=row.workspace_id,
            project_id=row.project_id,
        )
    return {"ok": True, "reminded": len(rows), "expired": len(expired)}
