"""Asset downtime (``/projects/{projectId}/om/assets/{assetId}/downtime``) and reliability
(``.../assets/{assetId}/reliability``, ``/projects/{projectId}/om/reliability``)."""

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends
from fastapi.responses import StreamingResponse

from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.om.auth import CanReadOm, CanReadOmMoney, CanWorkOm
from plumbline.om.reliability.schemas import (
    DowntimeCreate,
    DowntimeRead,
    DowntimeUpdate,
    Reliability,
    ReliabilityReport,
    Window,
    window,
)
from plumbline.om.reliability.service import REPORT_HEADER, downtime
from plumbline.openapi import errors
from plumbline.records.export import csv_bytes, csv_response
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/om", tags=["om"])
Period = Annotated[Window, Depends(window)]
DOWNTIME = "/assets/{assetId}/downtime"
OVERLAP = errors(409, texts={409: "Overlaps another interval (DOWNTIME_OVERLAP)"})


@router.get(DOWNTIME, response_model=list[DowntimeRead])
async def list_downtime(ctx: CanReadOm, db: DB, page: Page, assetId: str) -> ORJSONResponse:
    """The asset's downtime intervals, newest first."""
    return ORJSONResponse.page(await downtime.list_downtime(db, ctx, assetId, page))


@router.post(DOWNTIME, response_model=DowntimeRead, responses=OVERLAP)
async def create_downtime(
    ctx: CanWorkOm, db: DB, assetId: str, body: DowntimeCreate
) -> ORJSONResponse:
    """Mark the asset OFFLINE (planned or not) from a time, to a time or until closed."""
    return ORJSONResponse(await downtime.create(db, ctx, assetId, body))


@router.patch(DOWNTIME + "/{downtimeId}", response_model=DowntimeRead, responses=OVERLAP)
async def update_downtime(
    ctx: CanWorkOm, db: DB, assetId: str, downtimeId: str, body: DowntimeUpdate
) -> ORJSONResponse:
    """Close an interval (``endedAt``: the asset is ONLINE again) or correct it."""
    return ORJSONResponse(await downtime.update(db, ctx, assetId, downtimeId, body))


@router.delete(DOWNTIME + "/{downtimeId}", response_model=Ok)
async def delete_downtime(ctx: CanWorkOm, db: DB, assetId: str, downtimeId: str) -> ORJSONResponse:
    """Delete an interval recorded by mistake (soft; MANAGER+, or a member's own)."""
    await downtime.delete(db, ctx, assetId, downtimeId)
    return ORJSONResponse({"ok": True})


@router.get("/assets/{assetId}/reliability", response_model=Reliability)
async def asset_reliability(
    ctx: CanReadOmMoney, db: DB, assetId: str, period: Period
) -> ORJSONResponse:
    """The asset's downtime, availability, failures, MTTR, MTBF and cost over a window."""
    return ORJSONResponse(await downtime.asset_report(db, ctx, assetId, period))


@router.get("/reliability", response_model=ReliabilityReport)
async def project_reliability(ctx: CanReadOmMoney, db: DB, period: Period) -> ORJSONResponse:
    """The reliability figures of every asset of the project over a window (one row each)."""
    return ORJSONResponse(await downtime.project_report(db, ctx, period))


@router.get(
    "/reliability/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, one row per asset"}},
)
async def export_reliability(ctx: CanReadOmMoney, db: DB, period: Period) -> StreamingResponse:
    """The reliability report as CSV."""
    report = await downtime.project_report(db, ctx, period)
    lines = [REPORT_HEADER, *downtime.csv_lines(report["assets"])]

    async def body() -> AsyncIterator[bytes]:
        yield csv_bytes(lines)

    return csv_response(body(), "reliability.csv")
