"""Every maintenance-schedule query, within one project."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy import or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.pagination import PageParams
from plumbline.models import (
    Asset,
    Issue,
    MaintenanceCompletion,
    MaintenanceSchedule,
    MaintenanceWorkOrder,
    Project,
)
from plumbline.om.maintenance.schemas import MaintenanceScheduleRead
from plumbline.records.fields import Fields

S = MaintenanceSchedule.__table__.c
W = MaintenanceWorkOrder.__table__.c
# The response, in order: each field the column of the same name in snake case, but for the
# calendar's due date and the values the service derives.
FIELDS = Fields(
    MaintenanceSchedule.__table__,
    {name: to_snake(name) for name in MaintenanceScheduleRead.model_fields}
    | {"nextDueAt": None, "calendarDueAt": "next_due_at", "dueLabel": None, "health": None},
)
# The raw instants the service derives ``nextDueAt`` and ``health`` from, after FIELDS.columns.
DUE_COLUMNS = (S.next_due_at.label("calendar_due"), S.meter_due_at.label("meter_due"))


async def list_rows(
    db: AsyncSession, project_id: str, asset_id: str | None, page: PageParams
) -> Sequence[Any]:
    query = select(*FIELDS.columns, *DUE_COLUMNS).where(S.project_id == project_id)
    if asset_id is not None:
        query = query.where(S.asset_id == asset_id)
    return (await db.execute(page.apply(query, MaintenanceSchedule.id))).all()


async def rows_by_id(db: AsyncSession, ids: Sequence[str]) -> Sequence[Any]:
    """``list_rows``' rows of these schedules, then their project's time zone (events)."""
    query = (
        select(*FIELDS.columns, *DUE_COLUMNS, Project.timezone)
        .join(Project, Project.id == S.project_id)
        .where(S.id.in_(ids))
    )
    return (await db.execute(query)).all()


async def get(
    db: AsyncSession, project_id: str, schedule_id: str, *, lock: bool = False
) -> MaintenanceSchedule | None:
    query = select(MaintenanceSchedule).where(
        MaintenanceSchedule.id == schedule_id, MaintenanceSchedule.project_id == project_id
    )
    if lock:
        query = query.with_for_update()
    return (await db.execute(query)).scalar_one_or_none()


async def due_by(db: AsyncSession, project_id: str, end: datetime) -> Sequence[MaintenanceSchedule]:
    """Active schedules due (by the calendar or the meter) before ``end``, oldest first, so
    concurrent generators take the rows in the same order."""
    query = (
        select(MaintenanceSchedule)
        .where(
            MaintenanceSchedule.project_id == project_id,
            MaintenanceSchedule.is_active.is_(True),
            or_(MaintenanceSchedule.next_due_at < end, MaintenanceSchedule.meter_due_at < end),
        )
        .order_by(MaintenanceSchedule.id)
    )
    return (await db.execute(query)).scalars().all()


async def meter_schedules(
    db: AsyncSession, asset_id: str, meter_type: str
) -> Sequence[MaintenanceSchedule]:
    query = (
        select(MaintenanceSchedule)
        .where(
            MaintenanceSchedule.asset_id == asset_id,
            MaintenanceSchedule.meter_type == meter_type,
            MaintenanceSchedule.is_active.is_(True),
        )
        .order_by(MaintenanceSchedule.id)
        .with_for_update()
    )
    return (await db.execute(query)).scalars().all()


async def claim(db: AsyncSession, values: dict[str, Any]) -> bool:
    """Claims the schedule's due date for a new work order: True when this call inserted the
    claim, False when one exists (concurrent callers wait on the unique key, then see it)."""
    conn = await db.connection()
    insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    statement = (
        insert(MaintenanceWorkOrder)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["schedule_id", "due_at"])
        .returning(W.id)
    )
    return (await conn.execute(statement)).first() is not None


async def claimed_issue(db: AsyncSession, schedule_id: str, due_at: datetime) -> str:
    query = select(W.issue_id).where(W.schedule_id == schedule_id, W.due_at == due_at)
    return str((await db.execute(query)).scalar_one())


async def work_order(db: AsyncSession, project_id: str, issue_id: str) -> Issue | None:
    query = select(Issue).where(
        Issue.id == issue_id,
        Issue.project_id == project_id,
        Issue.issue_kind == "WORK_ORDER",
        Issue.deleted_at.is_(None),
    )
    return (await db.execute(query)).scalar_one_or_none()


async def completed_work_order(db: AsyncSession, work_order_id: str) -> bool:
    query = select(MaintenanceCompletion.id).where(
        MaintenanceCompletion.work_order_id == work_order_id
    )
    return (await db.execute(query)).first() is not None


async def work_order_due(db: AsyncSession, issue_id: str) -> datetime | None:
    """The due date a generated work order was made for."""
    query = select(W.due_at).where(W.issue_id == issue_id)
    return (await db.execute(query)).scalar_one_or_none()


async def completion_due(
    db: AsyncSession, schedule_id: str, due_at: datetime
) -> MaintenanceCompletion | None:
    """The completion that met the schedule's due date ``due_at``, if one did."""
    query = select(MaintenanceCompletion).where(
        MaintenanceCompletion.schedule_id == schedule_id, MaintenanceCompletion.due_at == due_at
    )
    return (await db.execute(query.limit(1))).scalar_one_or_none()


async def completion_between(
    db: AsyncSession, schedule_id: str, start: datetime, end: datetime
) -> MaintenanceCompletion | None:
    """The schedule's first completion done in [start, end)."""
    query = (
        select(MaintenanceCompletion)
        .where(
            MaintenanceCompletion.schedule_id == schedule_id,
            MaintenanceCompletion.completed_at >= start,
            MaintenanceCompletion.completed_at < end,
        )
        .order_by(MaintenanceCompletion.id)
        .limit(1)
    )
    return (await db.execute(query)).scalar_one_or_none()


async def asset_meters(db: AsyncSession, asset_id: str) -> list[dict[str, Any]]:
    """The meters of a schedule's asset (deleted or not: its work orders may still be done)."""
    query = select(Asset.meters).where(Asset.id == asset_id)
    return list((await db.execute(query)).scalar_one() or ())
