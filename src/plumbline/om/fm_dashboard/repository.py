"""The FM dashboard's figures: one SELECT of scalar subqueries, whatever the row counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import (
    Asset,
    InspectionRun,
    InspectionTemplate,
    Issue,
    MaintenanceCompletion,
    MaintenanceSchedule,
    WorkOrderCost,
)

UNRESOLVED = ("OPEN", "IN_PROGRESS")


@dataclass(frozen=True)
class Window:
    """The instants the figures compare against (UTC; days are the project's)."""

    now: datetime
    start_of_today: datetime
    end_of_week: datetime  # the start of next Monday
    end_of_due_soon: datetime  # the end of the 7th day after today
    week_ago: datetime
    month_ago: datetime  # 30 days before now


def _count(model: Any, *where: ColumnElement[bool]) -> Any:
    return select(func.count()).select_from(model).where(*where).scalar_subquery()


def _hours(dialect: str) -> Any:
    """Resolution time in hours, per backend (no portable interval arithmetic)."""
    if dialect == "postgresql":
        return func.extract("epoch", Issue.resolved_at - Issue.created_at) / 3600.0
    return (func.julianday(Issue.resolved_at) - func.julianday(Issue.created_at)) * 24.0


async def figures(db: AsyncSession, project_id: str, at: Window) -> dict[str, Any]:
    dialect = (await db.connection()).dialect.name
    live_issue = and_(Issue.project_id == project_id, Issue.deleted_at.is_(None))
    work_order = and_(live_issue, Issue.issue_kind == "WORK_ORDER")
    backlog = and_(work_order, Issue.status.in_(UNRESOLVED))
    schedule = and_(
        MaintenanceSchedule.project_id == project_id, MaintenanceSchedule.is_active.is_(True)
    )
    # A meter schedule is due when the calendar or the meter comes first.
    due = case(
        (
            and_(
                MaintenanceSchedule.meter_due_at.is_not(None),
                MaintenanceSchedule.meter_due_at < MaintenanceSchedule.next_due_at,
            ),
            MaintenanceSchedule.meter_due_at,
        ),
        else_=MaintenanceSchedule.next_due_at,
    )
    completion = and_(
        MaintenanceCompletion.project_id == project_id,
        MaintenanceCompletion.completed_at >= at.month_ago,
        MaintenanceCompletion.completed_at <= at.now,
    )
    resolved = and_(work_order, Issue.resolved_at.is_not(None), Issue.resolved_at >= at.month_ago)
    query = select(
        _count(Issue, work_order, Issue.status == "OPEN").label("openWorkOrders"),
        _count(Issue, work_order, Issue.status == "IN_PROGRESS").label("inProgressWorkOrders"),
        _count(
            Issue, live_issue, Issue.issue_kind == "OCCUPANT", Issue.status.in_(UNRESOLVED)
        ).label("openOccupantRequests"),
        _count(MaintenanceSchedule, schedule, due < at.start_of_today).label("overdueMaintenance"),
        _count(MaintenanceSchedule, schedule, due >= at.start_of_today, due < at.end_of_week).label(
            "maintenanceDueThisWeek"
        ),
        _count(
            MaintenanceSchedule, schedule, due >= at.start_of_today, due < at.end_of_due_soon
        ).label("maintenanceDueSoon"),
        _count(MaintenanceCompletion, completion).label("completions"),
        _count(MaintenanceCompletion, completion, MaintenanceCompletion.on_time.is_(True)).label(
            "onTime"
        ),
        _count(Issue, backlog, Issue.created_at < at.week_ago).label("workOrderBacklogOver7Days"),
        _count(Issue, backlog, Issue.created_at < at.month_ago).label("workOrderBacklogOver30Days"),
        select(func.avg(_hours(dialect))).where(resolved).scalar_subquery().label("mttrHours"),
        _count(
            Asset,
            Asset.project_id == project_id,
            Asset.deleted_at.is_(None),
            Asset.status != "RETIRED",
        ).label("assetsTracked"),
        _count(
            InspectionTemplate,
            InspectionTemplate.project_id == project_id,
            InspectionTemplate.deleted_at.is_(None),
            InspectionTemplate.next_due_at < at.start_of_today,
        ).label("overdueInspections"),
        _count(
            InspectionRun,
            InspectionRun.project_id == project_id,
            InspectionRun.deleted_at.is_(None),
            InspectionRun.status == "COMPLETED",
            InspectionRun.failed_count > 0,
            InspectionRun.completed_at >= at.month_ago,
        ).label("failedInspectionsLast30Days"),
        select(func.coalesce(func.sum(WorkOrderCost.amount), 0))
        .where(
            WorkOrderCost.project_id == project_id,
            WorkOrderCost.incurred_at >= at.month_ago,
            WorkOrderCost.incurred_at < at.now,
        )
        .scalar_subquery()
        .label("maintenanceCostLast30Days"),
    )
    return dict((await db.execute(query)).one()._mapping)
