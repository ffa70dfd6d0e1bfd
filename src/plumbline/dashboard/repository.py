"""Dashboard queries: aggregates only, one statement per section."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import File, FileVersion, Issue, PunchItem, Rfi


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
