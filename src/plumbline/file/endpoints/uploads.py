"""The upload routes: preview, presign and complete."""

from plumbline.auth.deps import UserOrApiKey
from plumbline.db import DB
from plumbline.file.auth import CanUploadFiles
from plumbline.file.endpoints import errors
from plumbline.file.schemas import (
    CompleteUpload,
    FileUploadTarget,
    PresignUpload,
    UploadPreview,
    UploadPreviewRead,
    UploadResult,
)
from plumbline.file.uploads import upload as upload_service
from plumbline.kit.responses import ORJSONResponse
from plumbline.routing import make_router

router = make_router(tags=["files"])


@router.post("/projects/{projectId}/uploads/preview", response_model=UploadPreviewRead)
async def preview_uploads(body: UploadPreview, ctx: CanUploadFiles, db: DB) -> ORJSONResponse:
    """Check files before uploading: allowed or why not, new file or new version."""
    return ORJSONResponse(await upload_service.preview(db, ctx, body))


@router.post(
    "/files/presign-upload", response_model=FileUploadTarget, responses=errors(402, 413, 415)
)
async def presign_upload(body: PresignUpload, principal: UserOrApiKey, db: DB) -> ORJSONResponse:
    """Get a presigned URL to PUT a file's bytes to (valid for one hour)."""
    return ORJSONResponse(await upload_service.presign(db, principal, body))


@router.post("/files/complete-upload", response_model=UploadResult, responses=errors(402, 409, 410))
async def complete_upload(body: CompleteUpload, principal: UserOrApiKey, db: DB) -> ORJSONResponse:
    """Verify the uploaded bytes and record a new file or a new version (idempotent)."""
    return ORJSONResponse(await upload_service.complete(db, principal, body))
