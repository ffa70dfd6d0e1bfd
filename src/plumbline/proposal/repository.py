"""Queries several parts use: one proposal the caller sees, the reminders' expiry and claims."""

from collections.abc import Sequence
from datetime import datetime
from typing import cast

from sqlalchemy import Insert, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Rows
from plumbline.models import Proposal, ProposalReminder, User
from plumbline.proposal.status import EXPIRED, LIVE
from plumbline.records.visibility import Visibility


async def get(
    db: AsyncSession, vis: Visibility, proposal_id: str, *, lock: bool = False
) -> Proposal | None:
    """The proposal, if the caller sees it; with ``lock``, its row locked for a transition
    (PostgreSQL; SQLite's writers take turns)."""
    query = select(Proposal).where(Proposal.id == proposal_id, *vis.where(Proposal))
    if lock:
        query = query.with_for_update(of=Proposal)
    return (await db.execute(query)).scalar_one_or_none()


async def expire_past_due(db: AsyncSession, now: datetime) -> Rows:
    """Marks SENT and VIEWED proposals past ``validUntil`` EXPIRED in one statement; the rows
    it changed (a concurrent run waits for the row locks and changes none of them again)."""
    statement = (
        update(Proposal)
        .where(
            Proposal.status.in_(LIVE),
            Proposal.valid_until <= now,
            Proposal.deleted_at.is_(None),
        )
        .values(status=EXPIRED, updated_at=now)
        .returning(Proposal.id, Proposal.project_id, Proposal.workspace_id)
    )
    result = await db.execute(statement, execution_options={"synchronize_session": False})
    return result.all()


async def expiring(db: AsyncSession, now: datetime, until: datetime) -> list[str]:
    """SENT and VIEWED proposals whose ``validUntil`` falls in (now, until]."""
    query = (
        select(Proposal.id)
        .where(
            Proposal.status.in_(LIVE),
            Proposal.valid_until > now,
            Proposal.valid_until <= until,
            Proposal.deleted_at.is_(None),
        )
        .order_by(Proposal.id)
    )  # one lock order for every run
    return [str(row) for row in (await db.execute(query)).scalars()]


async def claim_reminders(
    db: AsyncSession, proposal_ids: Sequence[str], kind: str, now: datetime
) -> list[str]:
    """Writes one reminder row per proposal and kind, skipping those already there: the ids
    claimed by this transaction. A concurrent run's insert waits for this one's commit and
    then claims nothing, so each reminder goes out once."""
    if not proposal_ids:
        return []
    module = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    rows = [{"proposal_id": pid, "kind": kind, "created_at": now} for pid in proposal_ids]
    statement = cast(
        Insert,
        module.insert(ProposalReminder)
        .values(rows)
        .on_conflict_do_nothing()
        .returning(ProposalReminder.proposal_id),
    )
    return [str(pid) for pid in (await db.execute(statement)).scalars()]


async def reminder_rows(db: AsyncSession, proposal_ids: Sequence[str]) -> Rows:
    """What a reminder says, with its sender (the last sender, else the creator)."""
    sender = func.coalesce(Proposal.sent_by, Proposal.created_by)
    query = (
        select(
            Proposal.id,
            Proposal.project_id,
            Proposal.workspace_id,
            Proposal.reference,
            Proposal.title,
            Proposal.client_name,
            Proposal.valid_until,
            User.id.label("user_id"),
            User.name.label("user_name"),
            User.email,
        )
        .join(User, User.id == sender)
        .where(Proposal.id.in_(proposal_ids))
        .order_by(Proposal.id)
    )
    return (await db.execute(query)).all()
