"""Assets and their meter readings: ``/projects/{projectId}/om/assets``."""

from typing import Annotated

from fastapi import Depends, Query

from plumbline.db import DB, UoW
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.om.assets import bulk
from plumbline.om.assets.schemas import (
    AssetBulk,
    AssetCreate,
    AssetFilters,
    AssetRead,
    AssetUpdate,
    ReadingCreate,
    ReadingRead,
    asset_filters,
    reading_filters,
)
from plumbline.om.assets.service import asset_service
from plumbline.om.auth import CanReadOm, CanSetupOm, CanWorkOm
from plumbline.records.bulk import BULK_RESPONSES, UpsertAnswer
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/om/assets", tags=["om"])


@router.get("", response_model=list[AssetRead])
async def list_assets(
    ctx: CanReadOm,
    db: DB,
    page: Page,
    filters: Annotated[AssetFilters, Depends(asset_filters)],
) -> ORJSONResponse:
    """The project's live assets, newest first (filters: category, status, location, q,
    externalId)."""
    rows, headers = await asset_service.list_assets(db, ctx, filters, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("", response_model=AssetRead)
async def create_asset(ctx: CanSetupOm, db: DB, body: AssetCreate) -> ORJSONResponse:
    """Create an asset (MANAGER+); ``tag`` unique among the project's live assets (409)."""
    return ORJSONResponse(await asset_service.create(db, ctx, body))


@router.post("/bulk", response_model=UpsertAnswer, responses=BULK_RESPONSES)
async def bulk_upsert_assets(ctx: CanSetupOm, uow: UoW, body: AssetBulk) -> ORJSONResponse:
    """Create or update up to 1,000 assets by externalId (MANAGER+); a result per record."""
    return ORJSONResponse(await bulk.upsert(uow, ctx, body))


@router.get("/{assetId}", response_model=AssetRead)
async def get_asset(ctx: CanReadOm, db: DB, assetId: str) -> ORJSONResponse:
    """One asset."""
    return ORJSONResponse(await asset_service.get(db, ctx, assetId))


@router.patch("/{assetId}", response_model=AssetRead)
async def update_asset(ctx: CanSetupOm, db: DB, assetId: str, body: AssetUpdate) -> ORJSONResponse:
    """Update an asset (MANAGER+): only the fields sent; ``meters`` as a whole list."""
    return ORJSONResponse(await asset_service.update(db, ctx, assetId, body))


@router.delete("/{assetId}", response_model=Ok)
async def delete_asset(
    ctx: CanSetupOm,
    db: DB,
    assetId: str,
    force: Annotated[
        bool,
        Query(description="Delete even with open work orders or active schedules (pauses them)"),
    ] = False,
) -> ORJSONResponse:
    """Delete an asset (soft, MANAGER+); 409 with open work orders or active schedules unless
    ``force=true``."""
    await asset_service.delete(db, ctx, assetId, force=force)
    return ORJSONResponse({"ok": True})


@router.post("/{assetId}/meter-readings", response_model=ReadingRead)
async def record_reading(
    ctx: CanWorkOm, db: DB, assetId: str, body: ReadingCreate
) -> ORJSONResponse:
    """Record a meter reading; cumulative meters never go backwards (400). A reading meeting a
    meter schedule's condition makes it due."""
    return ORJSONResponse(await asset_service.record_reading(db, ctx, assetId, body))


@router.get("/{assetId}/meter-readings", response_model=list[ReadingRead])
async def list_readings(
    ctx: CanReadOm,
    db: DB,
    page: Page,
    assetId: str,
    meter_type: Annotated[str | None, Depends(reading_filters)],
) -> ORJSONResponse:
    """The asset's reading history, newest recorded first (filter: meterType)."""
    rows, headers = await asset_service.readings(db, ctx, assetId, meter_type, page)
    return ORJSONResponse(rows, headers=headers)
