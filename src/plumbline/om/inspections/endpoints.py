"""Inspection templates and runs: ``.../om/inspection-templates`` and ``.../om/inspection-runs``."""

from typing import Annotated

from fastapi import Body, Depends, Query
from fastapi.responses import Response

from plumbline.authz.project import ProjectContext
from plumbline.db import DB, UoW
from plumbline.file.endpoints import errors
from plumbline.issue.schemas import IssuePhotoComplete, IssuePhotoPresign, PhotoUploadTarget
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.om.auth import CanReadOm, CanSetupOm, CanWorkOm
from plumbline.om.inspections.completion import completion
from plumbline.om.inspections.schemas import (
    InspectionTemplateCreate,
    InspectionTemplateRead,
    InspectionTemplateUpdate,
    RunComplete,
    RunCreate,
    RunPhoto,
    RunRead,
    RunStatus,
    RunUpdate,
)
from plumbline.om.inspections.service import run_photos
from plumbline.om.inspections.service import runs as run_service
from plumbline.om.inspections.templates import templates as template_service
from plumbline.records import seen
from plumbline.routing import make_router

# Routes with a body about one run: the run is looked up (404) before the body is read.
CanWorkOnRun = Annotated[ProjectContext, Depends(seen(CanWorkOm, run_service.require, "runId"))]

templates = make_router(prefix="/projects/{projectId}/om/inspection-templates", tags=["om"])
runs = make_router(prefix="/projects/{projectId}/om/inspection-runs", tags=["om"])


@templates.get("", response_model=list[InspectionTemplateRead])
async def list_inspection_templates(ctx: CanReadOm, db: DB, page: Page) -> ORJSONResponse:
    """List the project's inspection templates, newest first."""
    rows, headers = await template_service.list_templates(db, ctx, page)
    return ORJSONResponse(rows, headers=headers)


@templates.post("", response_model=InspectionTemplateRead)
async def create_inspection_template(
    ctx: CanSetupOm, db: DB, body: InspectionTemplateCreate
) -> ORJSONResponse:
    """Create an inspection template (MANAGER+); first due at nextDueAt, else now."""
    return ORJSONResponse(await template_service.create_template(db, ctx, body))


@templates.get("/{templateId}", response_model=InspectionTemplateRead)
async def get_inspection_template(ctx: CanReadOm, db: DB, templateId: str) -> ORJSONResponse:
    """One inspection template."""
    return ORJSONResponse(await template_service.get_template(db, ctx, templateId))


@templates.patch("/{templateId}", response_model=InspectionTemplateRead)
async def update_inspection_template(
    ctx: CanSetupOm, db: DB, templateId: str, body: InspectionTemplateUpdate
) -> ORJSONResponse:
    """Update an inspection template (MANAGER+); runs already started keep their items."""
    return ORJSONResponse(await template_service.update_template(db, ctx, templateId, body))


@templates.delete("/{templateId}", response_model=Ok)
async def delete_inspection_template(ctx: CanSetupOm, db: DB, templateId: str) -> ORJSONResponse:
    """Delete an inspection template (soft, MANAGER+); its runs and reports stay."""
    await template_service.delete_template(db, ctx, templateId)
    return ORJSONResponse({"ok": True})


@runs.get("", response_model=list[RunRead])
async def list_inspection_runs(
    ctx: CanReadOm,
    db: DB,
    page: Page,
    template_id: Annotated[str | None, Query(alias="templateId", max_length=64)] = None,
    asset_id: Annotated[str | None, Query(alias="assetId", max_length=64)] = None,
    status: Annotated[RunStatus | None, Query()] = None,
) -> ORJSONResponse:
    """List inspection runs, newest first (filters: templateId, assetId, status)."""
    rows, headers = await run_service.list_runs(
        db, ctx, page, template_id=template_id, asset_id=asset_id, status=status
    )
    return ORJSONResponse(rows, headers=headers)


@runs.post("", response_model=RunRead)
async def create_inspection_run(ctx: CanWorkOm, db: DB, body: RunCreate) -> ORJSONResponse:
    """Start a DRAFT inspection run of a template, optionally on an asset."""
    return ORJSONResponse(await run_service.create_run(db, ctx, body))


@runs.get("/{runId}", response_model=RunRead)
async def get_inspection_run(ctx: CanReadOm, db: DB, runId: str) -> ORJSONResponse:
    """One inspection run with its results and photos."""
    return ORJSONResponse(await run_service.get_run(db, ctx, runId))


@runs.patch("/{runId}", response_model=RunRead)
async def update_inspection_run(
    ctx: CanWorkOm, db: DB, runId: str, body: RunUpdate
) -> ORJSONResponse:
    """Save results of a DRAFT run (merged by itemId); a completed run is read-only (409)."""
    return ORJSONResponse(await run_service.update_run(db, ctx, runId, body))


@runs.delete("/{runId}", response_model=Ok)
async def delete_inspection_run(ctx: CanWorkOm, db: DB, runId: str) -> ORJSONResponse:
    """Discard a DRAFT run (MANAGER+ any, a member their own); completed runs stay (409)."""
    await run_service.delete_run(db, ctx, runId)
    return ORJSONResponse({"ok": True})


@runs.post("/{runId}/complete", response_model=RunRead)
async def complete_inspection_run(
    ctx: CanWorkOm, uow: UoW, runId: str, body: Annotated[RunComplete | None, Body()] = None
) -> ORJSONResponse:
    """Complete a run: required items answered (else 400 listing them), follow-up work orders
    for failed items, the template's next due date advanced; once, however often it is sent."""
    result = await completion.complete_run(uow, ctx, runId, body or RunComplete())
    return ORJSONResponse(result)


@runs.post("/{runId}/photos/presign", response_model=PhotoUploadTarget, responses=errors(413, 415))
async def presign_inspection_photo(
    ctx: CanWorkOnRun, db: DB, runId: str, body: IssuePhotoPresign
) -> ORJSONResponse:
    """Get an upload target for a photo of a DRAFT run (JPEG, PNG, WebP or HEIC; 15 MB; 60)."""
    return ORJSONResponse(await run_photos.presign(db, ctx, runId, body))


@runs.post("/{runId}/photos/complete", response_model=RunPhoto)
async def complete_inspection_photo(
    ctx: CanWorkOnRun, db: DB, runId: str, body: IssuePhotoComplete
) -> ORJSONResponse:
    """Record an uploaded photo of a run; name it in a result's photoUploadId."""
    return ORJSONResponse(await run_photos.complete(db, ctx, runId, body))


@runs.get(
    "/{runId}/report.pdf",
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}, "description": "The run's report"}},
)
async def inspection_run_report(ctx: CanReadOm, db: DB, runId: str) -> Response:
    """The run's report as a PDF: items, outcomes, notes, photos, signer, follow-ups."""
    document, filename = await run_service.report(db, ctx, runId)
    return Response(
        document,
        media_type="application/pdf",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
