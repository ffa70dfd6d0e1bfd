"""``/projects/{projectId}/audit-logs``: the project's entries, and their CSV or JSON export."""

from typing import Annotated

from fastapi import Depends, Query
from fastapi.responses import StreamingResponse

from plumbline.audit.schemas import AuditLogRead, ExportFormat, Filters
from plumbline.audit.service import audit as audit_service
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext, project_access
from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.routing import make_router

router = make_router(tags=["audit"])

CanReadAudit = Annotated[
    ProjectContext, Depends(project_access(Permission.AUDIT_READ, scope="audit:read"))
]
CanExportAudit = Annotated[
    ProjectContext, Depends(project_access(Permission.AUDIT_EXPORT, scope="audit:read"))
]
MEDIA_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


@router.get("/projects/{projectId}/audit-logs", response_model=list[AuditLogRead])
async def list_audit_logs(
    ctx: CanReadAudit, db: DB, filters: Filters, page: Page
) -> ORJSONResponse:
    """The project's audit trail, newest first (MANAGER and above)."""
    return ORJSONResponse.page(
        await audit_service.list_entries(db, project_id=ctx.project.id, filters=filters, page=page)
    )


@router.get(
    "/projects/{projectId}/audit-logs/export",
    response_model=list[AuditLogRead],
    responses={200: {"content": {"text/csv": {"schema": {"type": "string"}}}}},
)
async def export_audit_logs(
    ctx: CanExportAudit,
    filters: Filters,
    fmt: Annotated[ExportFormat, Query(alias="format")] = "csv",
) -> StreamingResponse:
    """Download the project's audit trail as CSV or JSON, oldest first (ADMIN and above)."""
    body = audit_service.export(project_id=ctx.project.id, filters=filters, fmt=fmt)
    filename = f"audit-log-{ctx.project.id}.{fmt}"
    return StreamingResponse(
        body,
        media_type=MEDIA_TYPES[fmt],
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
