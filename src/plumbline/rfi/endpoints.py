"""``/projects/{projectId}/rfi``: RFIs, their messages, attachments and CSV export."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query
from starlette.responses import StreamingResponse

from plumbline.db import DB, UoW
from plumbline.file.schemas import AttachmentRead, FileUploadTarget
from plumbline.kit import clock
from plumbline.kit.pagination import Page, UpdatedSince
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.records.export import csv_response
from plumbline.rfi.attachments import rfi_attachments
from plumbline.rfi.auth import CanCreateRfi, CanPostOnRfi, CanReadRfi, CanWriteOneRfi, CanWriteRfi
from plumbline.rfi.export import rfi_csv
from plumbline.rfi.messages import rfi_messages
from plumbline.rfi.repository import RfiFilters
from plumbline.rfi.schemas import (
    AttachmentComplete,
    AttachmentPresign,
    MessageCreate,
    Priority,
    RfiCreate,
    RfiMessageRead,
    RfiRead,
    RfiUpdate,
    Status,
)
from plumbline.rfi.service import rfi as rfi_service
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/rfi", tags=["rfi"])


async def rfi_filters(
    status: Annotated[Status | None, Query(description="Only RFIs in this status")] = None,
    priority: Annotated[Priority | None, Query(description="Only this priority")] = None,
    assigneeId: Annotated[
        str | None, Query(max_length=64, description="Only RFIs this user responds to")
    ] = None,
    q: Annotated[
        str | None,
        Query(max_length=200, description="Text in the title or question, or the number"),
    ] = None,
    updatedSince: UpdatedSince = None,
) -> RfiFilters:
    return RfiFilters(status, priority, assigneeId, q or None, updatedSince)


Filters = Annotated[RfiFilters, Depends(rfi_filters)]


@router.get("", response_model=list[RfiRead])
async def list_rfis(ctx: CanReadRfi, db: DB, page: Page, filters: Filters) -> ORJSONResponse:
    """List the project's RFIs, newest first."""
    return ORJSONResponse.page(await rfi_service.list_rfis(db, ctx, filters, page))


@router.post("", response_model=RfiRead)
async def create_rfi(ctx: CanCreateRfi, uow: UoW, body: RfiCreate) -> ORJSONResponse:
    """Create an RFI (status OPEN, next number of the project)."""
    return ORJSONResponse(await rfi_service.create(uow, ctx, body))


@router.get(
    "/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "The RFIs as CSV"}},
)
async def export_rfis(ctx: CanReadRfi, filters: Filters) -> StreamingResponse:
    """Export the project's RFIs as CSV (same filters as the list), streamed."""
    filename = f"rfis-{clock.today().isoformat()}.csv"
    return csv_response(rfi_csv(rfi_service.collection_viewer(ctx), filters), filename)


@router.get("/{rfiId}", response_model=RfiRead)
async def read_rfi(ctx: CanReadRfi, db: DB, rfiId: str) -> ORJSONResponse:
    """Read one RFI."""
    return ORJSONResponse(await rfi_service.read(db, ctx, rfiId))


@router.patch("/{rfiId}", response_model=RfiRead)
async def update_rfi(ctx: CanWriteRfi, uow: UoW, rfiId: str, body: RfiUpdate) -> ORJSONResponse:
    """Edit an RFI or move it through its workflow (status, answerMessageId)."""
    return ORJSONResponse(await rfi_service.update(uow, ctx, rfiId, body))


@router.delete("/{rfiId}", response_model=Ok)
async def delete_rfi(ctx: CanWriteRfi, db: DB, rfiId: str) -> ORJSONResponse:
    """Delete an RFI (soft; members delete their own, managers any)."""
    await rfi_service.delete(db, ctx, rfiId)
    return ORJSONResponse({"ok": True})


@router.get("/{rfiId}/messages", response_model=list[RfiMessageRead])
async def list_rfi_messages(ctx: CanReadRfi, db: DB, page: Page, rfiId: str) -> ORJSONResponse:
    """List an RFI's messages, newest first."""
    return ORJSONResponse.page(await rfi_messages.list_messages(db, ctx, rfiId, page))


@router.post("/{rfiId}/messages", response_model=RfiMessageRead)
async def post_rfi_message(
    ctx: CanPostOnRfi, db: DB, rfiId: str, body: MessageCreate
) -> ORJSONResponse:
    """Post a message (sanitised rich text) on an RFI."""
    return ORJSONResponse(await rfi_messages.post(db, ctx, rfiId, body))


@router.post("/{rfiId}/attachments/presign", response_model=FileUploadTarget)
async def presign_rfi_attachment(
    ctx: CanWriteOneRfi, db: DB, rfiId: str, body: AttachmentPresign
) -> ORJSONResponse:
    """Get an upload target for an RFI attachment (any type, at most 25 MB)."""
    return ORJSONResponse(await rfi_attachments.presign(db, ctx, rfiId, body))


@router.post("/{rfiId}/attachments/complete", response_model=AttachmentRead)
async def complete_rfi_attachment(
    ctx: CanWriteOneRfi, db: DB, rfiId: str, body: AttachmentComplete
) -> ORJSONResponse:
    """Record an uploaded RFI attachment once its bytes are stored."""
    return ORJSONResponse(await rfi_attachments.complete(db, ctx, rfiId, body))
