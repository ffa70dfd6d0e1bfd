"""Dashboard queries: aggregates only, one statement per section."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, case, func, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import (
    File,
    FileVersion,
    Issue,
    Proposal,
    PunchItem,
    PunchItemAssignee,
    Rfi,
    RfiAssignee,
)
from plumbline.proposal.status import LIVE as PROPOSAL_LIVE


async def file_totals(db: AsyncSession, *, project_id: str) -> tuple[int, int]:
    """Live files, and the bytes of their live versions."""
    files = (
        select(func.count())
        .select_from(File)
        .where(File.project_id == project_id, File.deleted_at.is_(None))
        .scalar_subquery()
    )
    stored = (
        select(func.coalesce(func.sum(FileVersion.size_bytes), 0))
        .join(File, File.id == FileVersion.file_id)
        .where(
            FileVersion.project_id == project_id,
            FileVersion.deleted_at.is_(None),
            File.deleted_at.is_(None),
        )
        .scalar_subquery()
    )
    count, size = (await db.execute(select(files, stored))).one()
    return int(count), int(size)


@dataclass(frozen=True)
class StatusTally:
    """One status of one record table: how many, and how many of them are past due or due
    within the window. Whether a status counts as open is the service's call."""

    count: int = 0
    past_due: int = 0
    due_soon: int = 0
    work_orders: int = 0


def _flag(condition: ColumnElement[bool]) -> ColumnElement[Any]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


Record = type[Issue] | type[Rfi] | type[PunchItem]


async def tally(
    db: AsyncSession, model: Record, project_id: str, today: date, horizon: date
) -> dict[str, StatusTally]:
    """Live records of the project per status, in one GROUP BY statement (and, of issues, the
    work orders)."""
    flags = [_flag(model.due_date < today), _flag(model.due_date.between(today, horizon))]
    if model is Issue:
        flags.append(_flag(Issue.issue_kind == "WORK_ORDER"))
    rows = await db.execute(
        select(model.status, func.count(), *flags)
        .where(model.project_id == project_id, model.deleted_at.is_(None))
        .group_by(model.status)
    )
    return {str(row[0]): StatusTally(*(int(n) for n in row[1:])) for row in rows}


async def pending_proposals(db: AsyncSession, project_id: str, now: datetime) -> int:
    """Live proposals sent and still unanswered within their validity."""
    query = select(func.count()).where(
        Proposal.project_id == project_id,
        Proposal.deleted_at.is_(None),
        Proposal.status.in_(PROPOSAL_LIVE),
        Proposal.valid_until > now,
    )
    return int((await db.execute(query)).scalar_one())


@dataclass(frozen=True)
class Open:
    """Which record tables count, and their open statuses (the service decides both)."""

    issues: tuple[str, ...] = ()
    rfis: tuple[str, ...] = ()
    punch: tuple[str, ...] = ()


def _mine_parts(project_id: str, user_id: str, open_: Open) -> list[Any]:
    parts: list[Any] = []
    if open_.issues:
        parts.append(
            select(
                literal("issue").label("kind"),
                Issue.id,
                Issue.number,
                Issue.title,
                Issue.status,
                Issue.due_date,
            ).where(
                Issue.project_id == project_id,
                Issue.deleted_at.is_(None),
                Issue.assignee_id == user_id,
                Issue.status.in_(open_.issues),
            )
        )
    if open_.rfis:
        parts.append(
            select(
                literal("rfi").label("kind"), Rfi.id, Rfi.rfi_number, Rfi.title, Rfi.status,
                Rfi.due_date,
            )
            .join(RfiAssignee, RfiAssignee.rfi_id == Rfi.id)
            .where(
                Rfi.project_id == project_id,
                Rfi.deleted_at.is_(None),
                RfiAssignee.user_id == user_id,
                Rfi.status.in_(open_.rfis),
            )
        )  # fmt: skip
    if open_.punch:
        parts.append(
            select(
                literal("punch").label("kind"),
                PunchItem.id,
                PunchItem.punch_number,
                PunchItem.title,
                PunchItem.status,
                PunchItem.due_date,
            )
            .join(PunchItemAssignee, PunchItemAssignee.punch_item_id == PunchItem.id)
            .where(
                PunchItem.project_id == project_id,
                PunchItem.deleted_at.is_(None),
                PunchItemAssignee.user_id == user_id,
                PunchItem.status.in_(open_.punch),
            )
        )
    return parts


async def mine(
    db: AsyncSession, project_id: str, user_id: str, open_: Open, limit: int
) -> tuple[list[Any], int]:
    """The open records assigned to ``user_id``, soonest due first (undated last), at most
    ``limit`` of them, and how many there are: two statements whatever the tables."""
    parts = _mine_parts(project_id, user_id, open_)
    if not parts:
        return [], 0
    mine_ = union_all(*parts).subquery()
    undated = case((mine_.c.due_date.is_(None), 1), else_=0)
    rows = await db.execute(
        select(mine_).order_by(undated, mine_.c.due_date, mine_.c.kind, mine_.c.id).limit(limit)
    )
    total = await db.execute(select(func.count()).select_from(mine_))
    return list(rows.all()), int(total.scalar_one())


async def subjects(
    db: AsyncSession, project_id: str, ids: dict[str, list[str]]
) -> dict[str, tuple[int | None, str]]:
    """The number and title of the records an activity feed names, by id, in one statement
    (``ids``: entity type -> ids; deleted records included, a feed may name them)."""
    tables: dict[str, tuple[Any, Any]] = {
        "issue": (Issue, Issue.number),
        "rfi": (Rfi, Rfi.rfi_number),
        "punch_item": (PunchItem, PunchItem.punch_number),
        "proposal": (Proposal, literal(None)),
    }
    parts: list[Any] = [
        select(model.id, number.label("number"), model.title).where(
            model.project_id == project_id, model.id.in_(ids[kind])
        )
        for kind, (model, number) in tables.items()
        if ids.get(kind)
    ]
    if not parts:
        return {}
    rows = await db.execute(union_all(*parts))
    return {str(row[0]): (row[1], str(row[2])) for row in rows}
