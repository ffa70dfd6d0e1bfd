"""Work-order costs (``/projects/{projectId}/om/work-orders/{workOrderId}/costs``), the
project's cost lines and their export, and the workspace's labour rates."""

from typing import Annotated

from fastapi import Depends
from fastapi.responses import StreamingResponse

from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.om.auth import (
    CanReadOm,
    CanReadOmMoney,
    CanReadOmWorkspace,
    CanSetupOmWorkspace,
    CanWorkOm,
)
from plumbline.om.costs import export
from plumbline.om.costs.rates import rates
from plumbline.om.costs.schemas import (
    CostFilters,
    CostRead,
    LabourCreate,
    OtherCreate,
    PartUse,
    RateRead,
    RateSet,
    TimerStart,
    WorkOrderCosts,
    cost_filters,
)
from plumbline.om.costs.service import costs
from plumbline.openapi import errors
from plumbline.records.export import csv_response, stream
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/om", tags=["om"])
rates_router = make_router(prefix="/workspaces/{workspaceId}/om/labour-rates", tags=["om"])
Filters = Annotated[CostFilters, Depends(cost_filters)]
COSTS = "/work-orders/{workOrderId}/costs"
OVERLAP = errors(409, texts={409: "Overlaps another labour entry of the person (LABOUR_OVERLAP)"})
STARTED = errors(
    409, texts={409: "A timer already runs (TIMER_RUNNING), or now is in another labour entry"}
)
STOPPED = errors(
    409,
    texts={409: "No timer here, one past 24 h, or its time overlaps another labour entry"},
)


@router.get(COSTS, response_model=WorkOrderCosts)
async def work_order_costs(ctx: CanReadOm, db: DB, workOrderId: str) -> ORJSONResponse:
    """A work order's cost lines and their totals (parts, labour, other, total)."""
    return ORJSONResponse(await costs.costs(db, ctx, workOrderId))


@router.post(COSTS + "/parts", response_model=CostRead, responses=errors(409))
async def use_part(ctx: CanWorkOm, db: DB, workOrderId: str, body: PartUse) -> ORJSONResponse:
    """A part used on the work order: from a location's stock (409 when it has too little), or
    bought for the job."""
    return ORJSONResponse(await costs.use_part(db, ctx, workOrderId, body))


@router.post(COSTS + "/labour", response_model=CostRead, responses=OVERLAP)
async def log_labour(
    ctx: CanWorkOm, db: DB, workOrderId: str, body: LabourCreate
) -> ORJSONResponse:
    """A labour entry: start and end, or minutes (at most 24 h), at the person's rate; a
    start and end sharing time with another entry of the person's is refused (409)."""
    return ORJSONResponse(await costs.log_labour(db, ctx, workOrderId, body))


@router.post(COSTS + "/timer/start", response_model=CostRead, responses=STARTED)
async def start_timer(ctx: CanWorkOm, db: DB, workOrderId: str, body: TimerStart) -> ORJSONResponse:
    """Start the caller's labour timer on the work order (one running timer per person)."""
    return ORJSONResponse(await costs.start_timer(db, ctx, workOrderId, body))


@router.post(COSTS + "/timer/stop", response_model=CostRead, responses=STOPPED)
async def stop_timer(ctx: CanWorkOm, db: DB, workOrderId: str) -> ORJSONResponse:
    """Stop the caller's timer on the work order: its time becomes a labour entry."""
    return ORJSONResponse(await costs.stop_timer(db, ctx, workOrderId))


@router.post(COSTS + "/other", response_model=CostRead)
async def add_other(ctx: CanWorkOm, db: DB, workOrderId: str, body: OtherCreate) -> ORJSONResponse:
    """Another cost: contractor, travel or other."""
    return ORJSONResponse(await costs.add_other(db, ctx, workOrderId, body))


@router.delete(COSTS + "/{costId}", response_model=Ok)
async def delete_cost(ctx: CanWorkOm, db: DB, workOrderId: str, costId: str) -> ORJSONResponse:
    """Delete a cost line; a part taken from stock returns to it."""
    await costs.delete(db, ctx, workOrderId, costId)
    return ORJSONResponse({"ok": True})


@router.get("/costs", response_model=list[CostRead])
async def list_costs(ctx: CanReadOmMoney, db: DB, page: Page, filters: Filters) -> ORJSONResponse:
    """The project's cost lines, newest first (filters: workOrderId, assetId, kind)."""
    return ORJSONResponse.page(await costs.list_costs(db, ctx, filters, page))


@router.get(
    "/costs/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, one row per cost line"}},
)
async def export_costs(ctx: CanReadOmMoney, filters: Filters) -> StreamingResponse:
    """The project's cost lines as CSV (streamed, newest first; the list's filters)."""
    return csv_response(stream(export.COST_HEADER, export.export(ctx, filters)), "costs.csv")


@rates_router.get("/{userId}", response_model=RateRead)
async def get_rate(ctx: CanReadOmWorkspace, db: DB, userId: str) -> ORJSONResponse:
    """A member's hourly labour rate."""
    return ORJSONResponse(await rates.get_rate(db, ctx, userId))


@rates_router.put("/{userId}", response_model=RateRead)
async def set_rate(ctx: CanSetupOmWorkspace, db: DB, userId: str, body: RateSet) -> ORJSONResponse:
    """Set a member's hourly labour rate (MANAGER+)."""
    return ORJSONResponse(await rates.set_rate(db, ctx, userId, body))
