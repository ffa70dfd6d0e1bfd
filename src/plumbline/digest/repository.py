"""The digests' queries: the claim of a day's digest, and what each digest lists."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import (
    Asset,
    DigestRun,
    InspectionTemplate,
    Issue,
    MaintenanceSchedule,
    Part,
    Project,
    StockLevel,
    StockLocation,
    Workspace,
)

OPEN_WORK = ("OPEN", "IN_PROGRESS")


async def claim(db: AsyncSession, kind: str, day: date, members: dict[str, int]) -> list[str]:
    """Insert the day's row for each workspace (with how many members it reaches) and answer
    the workspaces whose row this call wrote: the others had it already."""
    if not members:
        return []
    module = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    now = clock.now()
    statement = (
        module.insert(DigestRun)
        .values(
            [
                {
                    "id": new_id(),
                    "workspace_id": ws,
                    "kind": kind,
                    "day": day,
                    "members": n,
                    "created_at": now,
                }
                for ws, n in sorted(members.items())
            ]
        )
        .on_conflict_do_nothing()
        .returning(DigestRun.workspace_id)
    )
    return list((await db.execute(statement)).scalars())


# What every digest item carries of its project: id, name, workspace, and what decides whether
# the project's O&M is on (modules, operations mode, the workspace's plan).
PROJECT = (
    Project.id,
    Project.name,
    Project.workspace_id,
    Project.modules,
    Project.operations_mode,
    Workspace.plan,
)


async def ageing_work_orders(db: AsyncSession, before: datetime) -> Sequence[Sequence[Any]]:
    """Open and in-progress work orders created at or before ``before``, in live projects:
    id, number, title, status, created, assignee, then the ``PROJECT`` columns."""
    query = (
        select(
            Issue.id,
            Issue.number,
            Issue.title,
            Issue.status,
            Issue.created_at,
            Issue.assignee_id,
            *PROJECT,
        )
        .join(Project, Project.id == Issue.project_id)
        .join(Workspace, Workspace.id == Project.workspace_id)
        .where(
            Issue.issue_kind == "WORK_ORDER",
            Issue.status.in_(OPEN_WORK),
            Issue.deleted_at.is_(None),
            Issue.created_at <= before,
            Project.deleted_at.is_(None),
            Workspace.deleted_at.is_(None),
        )
        .order_by(Project.id, Issue.created_at, Issue.id)
    )
    return (await db.execute(query)).all()


async def due_schedules(db: AsyncSession, until: datetime) -> Sequence[Sequence[Any]]:
    """Active maintenance schedules of live assets due (by the calendar or the meter) at or
    before ``until``: id, title, next due, meter due, meter type, assignee, asset tag, asset
    name, then the ``PROJECT`` columns."""
    query = (
        select(
            MaintenanceSchedule.id,
            MaintenanceSchedule.title,
            MaintenanceSchedule.next_due_at,
            MaintenanceSchedule.meter_due_at,
            MaintenanceSchedule.meter_type,
            MaintenanceSchedule.assignee_id,
            Asset.tag,
            Asset.name,
            *PROJECT,
        )
        .join(Asset, Asset.id == MaintenanceSchedule.asset_id)
        .join(Project, Project.id == MaintenanceSchedule.project_id)
        .join(Workspace, Workspace.id == Project.workspace_id)
        .where(
            MaintenanceSchedule.is_active.is_(True),
            or_(
                MaintenanceSchedule.next_due_at <= until,
                MaintenanceSchedule.meter_due_at <= until,
            ),
            Asset.deleted_at.is_(None),
            Project.deleted_at.is_(None),
            Workspace.deleted_at.is_(None),
        )
        .order_by(Project.id, MaintenanceSchedule.next_due_at, MaintenanceSchedule.id)
    )
    return (await db.execute(query)).all()


async def due_inspections(db: AsyncSession, until: datetime) -> Sequence[Sequence[Any]]:
    """Live inspection templates due at or before ``until``: id, name, next due, then the
    ``PROJECT`` columns."""
    query = (
        select(
            InspectionTemplate.id,
            InspectionTemplate.name,
            InspectionTemplate.next_due_at,
            *PROJECT,
        )
        .join(Project, Project.id == InspectionTemplate.project_id)
        .join(Workspace, Workspace.id == Project.workspace_id)
        .where(
            InspectionTemplate.deleted_at.is_(None),
            InspectionTemplate.next_due_at <= until,
            Project.deleted_at.is_(None),
            Workspace.deleted_at.is_(None),
        )
        .order_by(Project.id, InspectionTemplate.next_due_at, InspectionTemplate.id)
    )
    return (await db.execute(query)).all()


async def low_stock(db: AsyncSession) -> Sequence[Sequence[Any]]:
    """Stock levels below their part's minimum, in live projects: part name, unit, on hand,
    minimum, location id and name, then the ``PROJECT`` columns."""
    query = (
        select(
            Part.name,
            Part.unit,
            StockLevel.on_hand,
            Part.min_quantity,
            StockLocation.id,
            StockLocation.name,
            *PROJECT,
        )
        .join(Part, Part.id == StockLevel.part_id)
        .join(StockLocation, StockLocation.id == StockLevel.location_id)
        .join(Project, Project.id == StockLevel.project_id)
        .join(Workspace, Workspace.id == Project.workspace_id)
        .where(
            StockLevel.low_since.is_not(None),
            StockLevel.on_hand < Part.min_quantity,
            Part.deleted_at.is_(None),
            StockLocation.deleted_at.is_(None),
            Project.deleted_at.is_(None),
            Workspace.deleted_at.is_(None),
        )
        .order_by(Project.id, Part.name, StockLocation.name)
    )
    return (await db.execute(query)).all()
