"""Maintenance schedules and their preventive work orders: ``.../om/maintenance``."""

from typing import Annotated

from fastapi import Query

from plumbline.db import DB, UoW
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.om.auth import CanReadOm, CanSetupOm, CanWorkOm
from plumbline.om.maintenance.completions import completions
from plumbline.om.maintenance.schemas import (
    CompleteBody,
    CompletionRead,
    GenerateRead,
    MaintenanceScheduleCreate,
    MaintenanceScheduleRead,
    MaintenanceScheduleUpdate,
)
from plumbline.om.maintenance.service import maintenance
from plumbline.om.maintenance.work_orders import work_orders
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/om/maintenance", tags=["om"])


@router.get("", response_model=list[MaintenanceScheduleRead])
async def list_schedules(
    ctx: CanReadOm,
    db: DB,
    page: Page,
    asset_id: Annotated[str | None, Query(alias="assetId", max_length=32)] = None,
) -> ORJSONResponse:
    """The project's maintenance schedules, newest first, each with its derived health."""
    rows, headers = await maintenance.list_schedules(db, ctx, asset_id, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("", response_model=MaintenanceScheduleRead)
async def create_schedule(
    ctx: CanSetupOm, db: DB, body: MaintenanceScheduleCreate
) -> ORJSONResponse:
    """Create a maintenance schedule for an asset of the project (MANAGER+)."""
    return ORJSONResponse(await maintenance.create(db, ctx, body))


@router.post("/generate-work-orders", response_model=GenerateRead)
async def generate_work_orders(ctx: CanWorkOm, uow: UoW) -> ORJSONResponse:
    """One PREVENTIVE work order per active schedule due by the end of today (the project's
    time zone), unless one exists for that schedule and due date."""
    return ORJSONResponse(await work_orders.generate(uow, ctx))


@router.get("/{scheduleId}", response_model=MaintenanceScheduleRead)
async def get_schedule(ctx: CanReadOm, db: DB, scheduleId: str) -> ORJSONResponse:
    """One maintenance schedule."""
    return ORJSONResponse(await maintenance.get(db, ctx, scheduleId))


@router.patch("/{scheduleId}", response_model=MaintenanceScheduleRead)
async def update_schedule(
    ctx: CanSetupOm, db: DB, scheduleId: str, body: MaintenanceScheduleUpdate
) -> ORJSONResponse:
    """Update a schedule (MANAGER+); ``isActive`` pauses and resumes it."""
    return ORJSONResponse(await maintenance.update(db, ctx, scheduleId, body))


@router.post("/{scheduleId}/complete", response_model=CompletionRead)
async def complete_schedule(
    ctx: CanWorkOm, db: DB, scheduleId: str, body: CompleteBody
) -> ORJSONResponse:
    """Record a completion (who, when, on time or late) and advance ``nextDueAt`` by the
    basis; a work order completes its schedule once (409 again)."""
    return ORJSONResponse(await completions.complete(db, ctx, scheduleId, body))
