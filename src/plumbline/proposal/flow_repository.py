"""Queries of the proposal lifecycle, the client portal and the reminders."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import cast

from sqlalchemy import Insert, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Rows
from plumbline.kit.pagination import PageParams
from plumbline.models import (
    Project,
    Proposal,
    ProposalComment,
    ProposalMessage,
    ProposalReminder,
    ProposalRevision,
    User,
    Workspace,
)
from plumbline.records.visibility import Visibility

LIVE = ("SENT", "VIEWED")  # sent and unanswered: these expire and get reminders


async def lock(db: AsyncSession, vis: Visibility, proposal_id: str) -> Proposal | None:
    """The proposal, its row locked for the transition (PostgreSQL; SQLite writers take turns)."""
    query = (
        select(Proposal)
        .where(Proposal.id == proposal_id, *vis.where(Proposal))
        .with_for_update(of=Proposal)
    )
    proposal: Proposal | None = (await db.execute(query)).scalar_one_or_none()
    return proposal


async def by_token_hash(
    db: AsyncSession, token_hash: str
) -> tuple[Proposal, Project, Workspace] | None:
    """The live proposal a portal token opens, with its project and workspace."""
    query = (
        select(Proposal, Project, Workspace)
        .join(Project, Project.id == Proposal.project_id)
        .join(Workspace, Workspace.id == Proposal.workspace_id)
        .where(
            Proposal.token_hash == token_hash,
            Proposal.deleted_at.is_(None),
            Project.deleted_at.is_(None),
            Workspace.deleted_at.is_(None),
        )
        .with_for_update(of=Proposal)
    )
    row = (await db.execute(query)).one_or_none()
    return (row[0], row[1], row[2]) if row else None


async def names(db: AsyncSession, project_id: str, workspace_id: str) -> tuple[str, str]:
    """The project's and the workspace's names, for letters and e-mails."""
    query = (
        select(Project.name, Workspace.name)
        .join(Workspace, Workspace.id == Project.workspace_id)
        .where(Project.id == project_id, Workspace.id == workspace_id)
    )
    row = (await db.execute(query)).one()
    return str(row[0]), str(row[1])


async def signature(db: AsyncSession, proposal_id: str) -> bytes | None:
    query = select(Proposal.signature_png).where(Proposal.id == proposal_id)
    found: bytes | None = (await db.execute(query)).scalar_one_or_none()
    return found


async def next_revision(db: AsyncSession, proposal_id: str) -> int:
    """The next revision number (called with the proposal's row locked)."""
    query = select(func.coalesce(func.max(ProposalRevision.number), 0)).where(
        ProposalRevision.proposal_id == proposal_id
    )
    return int((await db.execute(query)).scalar_one()) + 1


REVISION_COLUMNS = (
    ProposalRevision.id,
    ProposalRevision.proposal_id,
    ProposalRevision.number,
    ProposalRevision.snapshot,
    ProposalRevision.created_by,
    ProposalRevision.created_at,
)


async def revisions(db: AsyncSession, proposal_id: str, page: PageParams) -> Rows:
    """Newest first (ids are time-sortable: the latest revision has the highest id)."""
    query = select(*REVISION_COLUMNS).where(ProposalRevision.proposal_id == proposal_id)
    return (await db.execute(page.apply(query, ProposalRevision.id))).all()


async def comments(db: AsyncSession, proposal_id: str, page: PageParams) -> Rows:
    query = select(
        ProposalComment.id,
        ProposalComment.proposal_id,
        ProposalComment.body,
        ProposalComment.created_by,
        ProposalComment.created_at,
    ).where(ProposalComment.proposal_id == proposal_id)
    return (await db.execute(page.apply(query, ProposalComment.id))).all()


async def messages(db: AsyncSession, proposal_id: str, page: PageParams) -> Rows:
    """The thread, newest first as every list (a page of the latest messages)."""
    query = select(
        ProposalMessage.id,
        ProposalMessage.author,
        ProposalMessage.author_name,
        ProposalMessage.body,
        ProposalMessage.created_at,
    ).where(ProposalMessage.proposal_id == proposal_id)
    return (await db.execute(page.apply(query, ProposalMessage.id))).all()


async def user_name(db: AsyncSession, user_id: str | None) -> str | None:
    if user_id is None:
        return None
    found = (await db.execute(select(User.name).where(User.id == user_id))).scalar_one_or_none()
    return str(found) if found is not None else None


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
        .values(status="EXPIRED", updated_at=now)
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
