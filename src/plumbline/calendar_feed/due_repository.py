"""The queries behind a feed's events: one statement per kind of record, whatever the rows.

Each takes the projects it may read (the caller decided which, ``calendar_feed.auth``) and,
for a user's feed, the user the records must be due for (assigned, responder, manager, creator);
without one, every such record of the projects (a project's feed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVarTuple

from sqlalchemy import ColumnElement, Select, exists, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from plumbline.models import (
    Asset,
    InspectionRun,
    InspectionTemplate,
    Issue,
    MaintenanceSchedule,
    Proposal,
    PunchItem,
    PunchItemAssignee,
    Rfi,
    RfiAssignee,
    ScheduleTask,
)
from plumbline.proposal.status import EDITABLE, LIVE

OPEN_ISSUES = ("OPEN", "IN_PROGRESS")
OPEN_RFIS = ("OPEN", "IN_REVIEW")  # the answer is still due
Ts = TypeVarTuple("Ts")


async def _rows(
    db: AsyncSession,
    query: Select[*Ts],
    project_id: InstrumentedAttribute[str],
    project_ids: Sequence[str],
    mine: ColumnElement[bool] | None,
) -> Sequence[Any]:
    if not project_ids:
        return []
    query = query.where(project_id.in_(project_ids))
    if mine is not None:
        query = query.where(mine)
    return (await db.execute(query)).all()


async def issues(
    db: AsyncSession, project_ids: Sequence[str], user_id: str | None = None
) -> Sequence[Any]:
    """Open issues and work orders with a due date; a user's: assigned to them."""
    query = select(
        Issue.id,
        Issue.project_id,
        Issue.number,
        Issue.title,
        Issue.issue_kind,
        Issue.status,
        Issue.priority,
        Issue.location,
        Issue.due_date,
        Issue.updated_at,
    ).where(Issue.deleted_at.is_(None), Issue.due_date.is_not(None), Issue.status.in_(OPEN_ISSUES))
    mine = Issue.assignee_id == user_id if user_id else None
    return await _rows(db, query, Issue.project_id, project_ids, mine)


async def rfis(
    db: AsyncSession, project_ids: Sequence[str], user_id: str | None = None
) -> Sequence[Any]:
    """RFIs awaiting their answer, with a due date; a user's: as responder or manager."""
    query = select(
        Rfi.id,
        Rfi.project_id,
        Rfi.rfi_number,
        Rfi.title,
        Rfi.status,
        Rfi.priority,
        Rfi.due_date,
        Rfi.updated_at,
    ).where(Rfi.deleted_at.is_(None), Rfi.due_date.is_not(None), Rfi.status.in_(OPEN_RFIS))
    responder = exists().where(RfiAssignee.rfi_id == Rfi.id, RfiAssignee.user_id == user_id)
    mine = or_(Rfi.manager_id == user_id, responder) if user_id else None
    return await _rows(db, query, Rfi.project_id, project_ids, mine)


async def punch(
    db: AsyncSession, project_ids: Sequence[str], user_id: str | None = None
) -> Sequence[Any]:
    """Punch items not closed, with a due date; a user's: assigned to them."""
    query = select(
        PunchItem.id,
        PunchItem.project_id,
        PunchItem.punch_number,
        PunchItem.title,
        PunchItem.status,
        PunchItem.priority,
        PunchItem.location,
        PunchItem.due_date,
        PunchItem.updated_at,
    ).where(
        PunchItem.deleted_at.is_(None),
        PunchItem.due_date.is_not(None),
        PunchItem.status != "CLOSED",
    )
    assigned = exists().where(
        PunchItemAssignee.punch_item_id == PunchItem.id, PunchItemAssignee.user_id == user_id
    )
    return await _rows(db, query, PunchItem.project_id, project_ids, assigned if user_id else None)


async def maintenance(
    db: AsyncSession, project_ids: Sequence[str], user_id: str | None = None
) -> Sequence[Any]:
    """Active maintenance schedules of live assets; a user's: assigned to them."""
    query = (
        select(
            MaintenanceSchedule.id,
            MaintenanceSchedule.project_id,
            MaintenanceSchedule.title,
            MaintenanceSchedule.priority,
            MaintenanceSchedule.frequency,
            MaintenanceSchedule.interval_days,
            MaintenanceSchedule.anchor_day,
            MaintenanceSchedule.next_due_at,
            MaintenanceSchedule.meter_type,
            MaintenanceSchedule.meter_due_at,
            MaintenanceSchedule.updated_at,
            Asset.tag,
            Asset.name.label("asset_name"),
            Asset.location,
        )
        .join(Asset, Asset.id == MaintenanceSchedule.asset_id)
        .where(MaintenanceSchedule.is_active.is_(True), Asset.deleted_at.is_(None))
    )
    mine = MaintenanceSchedule.assignee_id == user_id if user_id else None
    return await _rows(db, query, MaintenanceSchedule.project_id, project_ids, mine)


async def inspections(
    db: AsyncSession, project_ids: Sequence[str], user_id: str | None = None
) -> Sequence[Any]:
    """Live inspection templates and when each is next due (templates are no one's: a user's
    inspections are the runs assigned to them)."""
    query = select(
        InspectionTemplate.id,
        InspectionTemplate.project_id,
        InspectionTemplate.name,
        InspectionTemplate.frequency,
        InspectionTemplate.interval_days,
        InspectionTemplate.anchor_day,
        InspectionTemplate.next_due_at,
        InspectionTemplate.updated_at,
    ).where(InspectionTemplate.deleted_at.is_(None))
    return await _rows(db, query, InspectionTemplate.project_id, project_ids, None)


async def inspection_runs(
    db: AsyncSession, project_ids: Sequence[str], user_id: str | None = None
) -> Sequence[Any]:
    """Inspection runs under way, due when their template is; a user's: assigned to them."""
    query = (
        select(
            InspectionRun.id,
            InspectionRun.project_id,
            InspectionRun.template_name,
            InspectionTemplate.next_due_at,
            InspectionRun.updated_at,
        )
        .join(InspectionTemplate, InspectionTemplate.id == InspectionRun.template_id)
        .where(
            InspectionRun.deleted_at.is_(None),
            InspectionRun.status == "DRAFT",
            InspectionTemplate.deleted_at.is_(None),
        )
    )
    mine = InspectionRun.assignee_id == user_id if user_id else None
    return await _rows(db, query, InspectionRun.project_id, project_ids, mine)


async def proposals(
    db: AsyncSession, project_ids: Sequence[str], user_id: str | None = None
) -> Sequence[Any]:
    """Proposals still open to an answer and when they expire; a user's: those they created."""
    query = select(
        Proposal.id,
        Proposal.project_id,
        Proposal.reference,
        Proposal.title,
        Proposal.status,
        Proposal.client_name,
        Proposal.valid_until,
        Proposal.updated_at,
    ).where(Proposal.deleted_at.is_(None), Proposal.status.in_((*EDITABLE, *LIVE)))
    mine = Proposal.created_by == user_id if user_id else None
    return await _rows(db, query, Proposal.project_id, project_ids, mine)


async def tasks(
    db: AsyncSession, project_ids: Sequence[str], user_id: str | None = None
) -> Sequence[Any]:
    """The schedule's tasks; a user's: those assigned to them and not completed."""
    query = select(
        ScheduleTask.id,
        ScheduleTask.project_id,
        ScheduleTask.name,
        ScheduleTask.status,
        ScheduleTask.progress_percent,
        ScheduleTask.is_milestone,
        ScheduleTask.start_date,
        ScheduleTask.end_date,
    )
    mine = None
    if user_id:
        mine = (ScheduleTask.assignee_id == user_id) & (ScheduleTask.status != "COMPLETED")
    return await _rows(db, query, ScheduleTask.project_id, project_ids, mine)
