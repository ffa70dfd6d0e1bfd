"""``/workspaces/{workspaceId}/materials``: CRUD, CSV import and export, bulk upsert."""

from typing import Annotated

from fastapi import Depends, Query, Request
from fastapi.responses import StreamingResponse

from plumbline.db import DB, UoW
from plumbline.errors import UnsupportedMediaType
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.material import bulk
from plumbline.material.auth import CanReadMaterials, CanWriteMaterials
from plumbline.material.schemas import (
    ImportResult,
    MaterialBulk,
    MaterialCreate,
    MaterialFilters,
    MaterialRead,
    MaterialUpdate,
    material_filters,
)
from plumbline.material.service import material as material_service
from plumbline.records.bulk import BULK_RESPONSES, UpsertAnswer
from plumbline.records.export import csv_response
from plumbline.routing import make_router

router = make_router(prefix="/workspaces/{workspaceId}/materials", tags=["materials"])
Filters = Annotated[MaterialFilters, Depends(material_filters)]
CSV_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "text/csv": {"schema": {"type": "string", "format": "binary", "maxLength": 1048576}}
        },
    }
}


@router.get("", response_model=list[MaterialRead])
async def list_materials(
    ctx: CanReadMaterials, db: DB, filters: Filters, page: Page
) -> ORJSONResponse:
    """List the workspace's materials, newest first (filters: q, category, externalId)."""
    rows, headers = await material_service.list_materials(db, ctx, filters, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("", response_model=MaterialRead)
async def create_material(ctx: CanWriteMaterials, db: DB, body: MaterialCreate) -> ORJSONResponse:
    """Create a material (unitPrice defaults to 0.00, currency to USD; SKU unique)."""
    return ORJSONResponse(await material_service.create(db, ctx, body))


@router.post("/import", response_model=ImportResult, openapi_extra=CSV_BODY)
async def import_materials(
    ctx: CanWriteMaterials,
    db: DB,
    request: Request,
    dry_run: Annotated[bool, Query(alias="dryRun")] = False,
) -> ORJSONResponse:
    """Import a CSV (text/csv; header name,unit[,unitPrice,currency,sku,category,supplier]),
    all or nothing; a known SKU updates its material. Results per row."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "text/csv":
        raise UnsupportedMediaType("Send the CSV as the raw body with Content-Type text/csv")
    body = await request.body()
    return ORJSONResponse(await material_service.import_csv(db, ctx, body, dry_run=dry_run))


@router.post("/bulk", response_model=UpsertAnswer, responses=BULK_RESPONSES)
async def bulk_upsert_materials(
    ctx: CanWriteMaterials, uow: UoW, body: MaterialBulk
) -> ORJSONResponse:
    """Create or update up to 1,000 materials by externalId; a result per record."""
    return ORJSONResponse(await bulk.upsert(uow, ctx, body))


@router.get(
    "/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, one row per material"}},
)
async def export_materials(ctx: CanReadMaterials) -> StreamingResponse:
    """Export the workspace's materials as CSV (streamed; re-importable)."""
    return csv_response(material_service.export_csv(ctx), "materials.csv")


@router.patch("/{materialId}", response_model=MaterialRead)
async def update_material(
    ctx: CanWriteMaterials, db: DB, materialId: str, body: MaterialUpdate
) -> ORJSONResponse:
    """Update a material (only the fields sent)."""
    return ORJSONResponse(await material_service.update(db, ctx, materialId, body))


@router.delete("/{materialId}", response_model=Ok)
async def delete_material(ctx: CanWriteMaterials, db: DB, materialId: str) -> ORJSONResponse:
    """Delete a material (proposal items keep what they copied from it)."""
    await material_service.delete(db, ctx, materialId)
    return ORJSONResponse({"ok": True})
