"""Every field-report query: always within one project, never deleted reports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.field_report.schemas import ReportFilters
from plumbline.kit import search
from plumbline.kit.pagination import PageParams
from plumbline.models import FieldReport
from plumbline.records.fields import Fields
from plumbline.records.visibility import Visibility

# The response, in order; totalWorkers is derived from manpower (parsed, so not as JSON text).
FIELDS = Fields(
    FieldReport.__table__,
    {
        "id": "id",
        "projectId": "project_id",
        "title": "title",
        "reportDate": "report_date",
        "reportKind": "report_kind",
        "status": "status",
        "weather": "weather",
        "manpower": "manpower",
        "totalWorkers": None,
        "workPerformed": "work_performed",
        "delays": "delays",
        "safetyNotes": "safety_notes",
        "notes": "notes",
        "createdBy": "created_by",
        "createdAt": "created_at",
        "updatedAt": "updated_at",
        "lastEmailedAt": "last_emailed_at",
        "emailCount": "email_count",
    },
    json_text=False,
)
SEARCHED = (
    FieldReport.title,
    FieldReport.work_performed,
    FieldReport.delays,
    FieldReport.safety_notes,
    FieldReport.notes,
)


async def list_rows(
    db: AsyncSession, vis: Visibility, filters: ReportFilters, page: PageParams
) -> Sequence[Row[Any]]:
    query = select(*FIELDS.columns).where(*vis.where(FieldReport))
    if filters.status:
        query = query.where(FieldReport.status == filters.status)
    if filters.report_kind:
        query = query.where(FieldReport.report_kind == filters.report_kind)
    if filters.date_from:
        query = query.where(FieldReport.report_date >= filters.date_from)
    if filters.date_to:
        query = query.where(FieldReport.report_date <= filters.date_to)
    if filters.q:
        query = query.where(search.matches(filters.q, *SEARCHED))
    return (await db.execute(search.inline(page.apply(query, FieldReport.id), filters.q))).all()


async def get(db: AsyncSession, vis: Visibility, report_id: str) -> FieldReport | None:
    query = select(FieldReport).where(FieldReport.id == report_id, *vis.where(FieldReport))
    report: FieldReport | None = (await db.execute(query)).scalar_one_or_none()
    return report
