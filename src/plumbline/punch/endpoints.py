"""``/projects/{projectId}/punch``: punch items, their photos and CSV export."""

from typing import Annotated

from fastapi import Depends
from fastapi.responses import StreamingResponse

from plumbline.db import DB, UoW
from plumbline.file.schemas import FileUploadTarget
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.punch.auth import CanReadPunch, CanWritePunch, CanWritePunchItem
from plumbline.punch.schemas import (
    PunchBulkResults,
    PunchBulkUpdate,
    PunchCreate,
    PunchFilters,
    PunchPhotoComplete,
    PunchPhotoPresign,
    PunchRead,
    PunchUpdate,
    punch_filters,
)
from plumbline.punch.service import punch as punch_service
from plumbline.punch.service import punch_photos
from plumbline.records.export import csv_response
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/punch", tags=["punch"])
Filters = Annotated[PunchFilters, Depends(punch_filters)]


@router.get("", response_model=list[PunchRead])
async def list_punch(ctx: CanReadPunch, db: DB, filters: Filters, page: Page) -> ORJSONResponse:
    """List punch items, newest first (filters: status, priority, assignee, trade, text)."""
    return ORJSONResponse.page(await punch_service.list_items(db, ctx, filters, page))


@router.post("", response_model=PunchRead)
async def create_punch(ctx: CanWritePunch, uow: UoW, body: PunchCreate) -> ORJSONResponse:
    """Create a punch item (status OPEN, next punch number)."""
    return ORJSONResponse(await punch_service.create(uow, ctx, body))


@router.get(
    "/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, one row per item"}},
)
async def export_punch(ctx: CanReadPunch, filters: Filters) -> StreamingResponse:
    """Export the filtered punch list as CSV (streamed)."""
    return csv_response(punch_service.export_csv(ctx, filters), "punch.csv")


@router.patch("/bulk", response_model=PunchBulkResults)
async def bulk_update_punch(ctx: CanWritePunch, uow: UoW, body: PunchBulkUpdate) -> ORJSONResponse:
    """Change the status and/or assignees of up to 200 punch items; results per item."""
    return ORJSONResponse({"results": await punch_service.bulk(uow, ctx, body)})


@router.get("/{punchId}", response_model=PunchRead)
async def get_punch(ctx: CanReadPunch, db: DB, punchId: str) -> ORJSONResponse:
    """One punch item."""
    return ORJSONResponse(await punch_service.get(db, ctx, punchId))


@router.patch("/{punchId}", response_model=PunchRead)
async def update_punch(
    ctx: CanWritePunch, uow: UoW, punchId: str, body: PunchUpdate
) -> ORJSONResponse:
    """Update a punch item; status changes follow the workflow (409 INVALID_TRANSITION)."""
    return ORJSONResponse(await punch_service.update(uow, ctx, punchId, body))


@router.delete("/{punchId}", response_model=Ok)
async def delete_punch(ctx: CanWritePunch, db: DB, punchId: str) -> ORJSONResponse:
    """Delete a punch item (soft; members delete only their own)."""
    await punch_service.delete(db, ctx, punchId)
    return ORJSONResponse({"ok": True})


@router.post("/{punchId}/reference-photos/presign", response_model=FileUploadTarget)
async def presign_punch_photo(
    ctx: CanWritePunchItem, db: DB, punchId: str, body: PunchPhotoPresign
) -> ORJSONResponse:
    """Upload target for a reference photo (jpeg, png, webp, heic; at most 15 MB, 8 per item)."""
    return ORJSONResponse(await punch_photos.presign(db, ctx, punchId, body))


@router.post("/{punchId}/reference-photos/complete", response_model=PunchRead)
async def complete_punch_photo(
    ctx: CanWritePunchItem, db: DB, punchId: str, body: PunchPhotoComplete
) -> ORJSONResponse:
    """Record an uploaded reference photo; returns the punch item."""
    return ORJSONResponse(await punch_service.complete_photo(db, ctx, punchId, body))


@router.delete("/{punchId}/reference-photos/{photoId}", response_model=Ok)
async def delete_punch_photo(
    ctx: CanWritePunch, uow: UoW, punchId: str, photoId: str
) -> ORJSONResponse:
    """Remove a reference photo."""
    await punch_photos.delete(uow, ctx, punchId, photoId)
    return ORJSONResponse({"ok": True})
