"""``/projects/{projectId}/field-reports``: daily and weekly reports, their PDF and e-mail."""

from typing import Annotated

from fastapi import Depends

from plumbline.db import DB, UoW
from plumbline.field_report.auth import CanReadFieldReports, CanWriteFieldReports
from plumbline.field_report.schemas import (
    EmailSent,
    FieldReportCreate,
    FieldReportRead,
    FieldReportUpdate,
    ReportFilters,
    SendEmail,
    report_filters,
)
from plumbline.field_report.service import field_report as report_service
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/field-reports", tags=["field-reports"])
Filters = Annotated[ReportFilters, Depends(report_filters)]


@router.get("", response_model=list[FieldReportRead])
async def list_field_reports(
    ctx: CanReadFieldReports, db: DB, filters: Filters, page: Page
) -> ORJSONResponse:
    """List field reports, newest first (filters: status, reportKind, from, to, q)."""
    return ORJSONResponse.page(await report_service.list_reports(db, ctx, filters, page))


@router.post("", response_model=FieldReportRead)
async def create_field_report(
    ctx: CanWriteFieldReports, db: DB, body: FieldReportCreate
) -> ORJSONResponse:
    """Create a field report (reportDate defaults to today on the project's site)."""
    return ORJSONResponse(await report_service.create(db, ctx, body))


@router.post("/send-email", response_model=EmailSent)
async def send_field_report(ctx: CanWriteFieldReports, uow: UoW, body: SendEmail) -> ORJSONResponse:
    """E-mail a field report (HTML body and PDF attachment) to up to 25 recipients."""
    return ORJSONResponse(await report_service.send_email(uow, ctx, body))


@router.get("/{reportId}", response_model=FieldReportRead)
async def get_field_report(ctx: CanReadFieldReports, db: DB, reportId: str) -> ORJSONResponse:
    """One field report."""
    return ORJSONResponse(await report_service.get(db, ctx, reportId))


@router.patch("/{reportId}", response_model=FieldReportRead)
async def update_field_report(
    ctx: CanWriteFieldReports, db: DB, reportId: str, body: FieldReportUpdate
) -> ORJSONResponse:
    """Update a field report (only the fields sent)."""
    return ORJSONResponse(await report_service.update(db, ctx, reportId, body))


@router.delete("/{reportId}", response_model=Ok)
async def delete_field_report(ctx: CanWriteFieldReports, db: DB, reportId: str) -> ORJSONResponse:
    """Delete a field report (soft; members delete only their own)."""
    await report_service.delete(db, ctx, reportId)
    return ORJSONResponse({"ok": True})
