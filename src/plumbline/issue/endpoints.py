"""Issue and work-order routes under /projects/{projectId}/issues."""

from __future__ import annotations

from fastapi.responses import StreamingResponse

from plumbline.db import DB, UoW
from plumbline.issue import bulk
from plumbline.issue.auth import CanCommentIssue, CanReadIssues, CanWriteIssue, CanWriteIssues
from plumbline.issue.comments import issue_comments
from plumbline.issue.filters import Filters
from plumbline.issue.orders import Sort
from plumbline.issue.photos import reference_photos
from plumbline.issue.schemas import (
    CommentCreate,
    IssueBulk,
    IssueCommentRead,
    IssueCreate,
    IssuePhotoComplete,
    IssuePhotoPresign,
    IssueRead,
    IssueUpdate,
    PhotoUploadTarget,
    ReferencePhoto,
)
from plumbline.issue.service import issue as issue_service
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.records.bulk import BULK_RESPONSES, UpsertAnswer
from plumbline.records.export import csv_response
from plumbline.routing import make_router

router = make_router(tags=["issues"], prefix="/projects/{projectId}/issues")


@router.get("", response_model=list[IssueRead])
async def list_issues(
    ctx: CanReadIssues, db: DB, filters: Filters, page: Page, sort: Sort
) -> ORJSONResponse:
    """List the project's issues and work orders, newest first or in the ``sort`` order."""
    return ORJSONResponse.page(await issue_service.list_issues(db, ctx, filters, page, sort))


@router.post("", response_model=IssueRead)
async def create_issue(ctx: CanWriteIssues, uow: UoW, body: IssueCreate) -> ORJSONResponse:
    """Create an issue or work order."""
    return ORJSONResponse(await issue_service.create(uow, ctx, body))


@router.post("/bulk", response_model=UpsertAnswer, responses=BULK_RESPONSES)
async def bulk_upsert_issues(ctx: CanWriteIssues, uow: UoW, body: IssueBulk) -> ORJSONResponse:
    """Create or update up to 1,000 issues and work orders by externalId; a result per record."""
    return ORJSONResponse(await bulk.upsert(uow, ctx, body))


@router.get(
    "/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, one row per issue"}},
)
async def export_issues(ctx: CanReadIssues, filters: Filters) -> StreamingResponse:
    """Export the issues as CSV (same filters as the list), streamed."""
    return csv_response(*issue_service.export(ctx, filters))


@router.get("/{issueId}", response_model=IssueRead)
async def get_issue(ctx: CanReadIssues, db: DB, issueId: str) -> ORJSONResponse:
    """Read one issue."""
    return ORJSONResponse(await issue_service.get(db, ctx, issueId))


@router.patch("/{issueId}", response_model=IssueRead)
async def update_issue(
    ctx: CanWriteIssues, uow: UoW, issueId: str, body: IssueUpdate
) -> ORJSONResponse:
    """Change the given fields of an issue; any status may follow any other."""
    return ORJSONResponse(await issue_service.update(uow, ctx, issueId, body))


@router.delete("/{issueId}", response_model=Ok)
async def delete_issue(ctx: CanWriteIssues, uow: UoW, issueId: str) -> ORJSONResponse:
    """Delete an issue (soft; MEMBERs only their own)."""
    await issue_service.delete(uow, ctx, issueId)
    return ORJSONResponse({"ok": True})


@router.get("/{issueId}/comments", response_model=list[IssueCommentRead])
async def list_comments(ctx: CanReadIssues, db: DB, issueId: str, page: Page) -> ORJSONResponse:
    """List an issue's comments, newest first."""
    return ORJSONResponse.page(await issue_comments.list_comments(db, ctx, issueId, page))


@router.post("/{issueId}/comments", response_model=IssueCommentRead)
async def add_comment(
    ctx: CanCommentIssue, db: DB, issueId: str, body: CommentCreate
) -> ORJSONResponse:
    """Comment on an issue; notifies its creator and assignee."""
    return ORJSONResponse(await issue_comments.add(db, ctx, issueId, body))


@router.post("/{issueId}/reference-photos/presign", response_model=PhotoUploadTarget)
async def presign_photo(
    ctx: CanWriteIssue, db: DB, issueId: str, body: IssuePhotoPresign
) -> ORJSONResponse:
    """Get an upload target for a reference photo (JPEG, PNG, WebP or HEIC; 15 MB; 12 per issue)."""
    return ORJSONResponse(await reference_photos.presign(db, ctx, issueId, body))


@router.post("/{issueId}/reference-photos/complete", response_model=ReferencePhoto)
async def complete_photo(
    ctx: CanWriteIssue, db: DB, issueId: str, body: IssuePhotoComplete
) -> ORJSONResponse:
    """Record an uploaded reference photo."""
    return ORJSONResponse(await reference_photos.complete(db, ctx, issueId, body))


@router.delete("/{issueId}/reference-photos/{photoId}", response_model=Ok)
async def delete_photo(ctx: CanWriteIssues, uow: UoW, issueId: str, photoId: str) -> ORJSONResponse:
    """Remove a reference photo."""
    await reference_photos.delete(uow, ctx, issueId, photoId)
    return ORJSONResponse({"ok": True})
