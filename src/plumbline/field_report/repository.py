"""Every field-report query: always within one project, never deleted reports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, Select, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.field_report.schemas import ReportFilters
from plumbline.models import FieldReport

COLUMNS = (
    FieldReport.id,
    FieldReport.project_id,
    FieldReport.title,
    FieldReport.report_date,
    FieldReport.report_kind,
    FieldReport.status,
    FieldReport.weather,
    FieldReport.manpower,
    FieldReport.work_performed,
    FieldReport.delays,
    FieldReport.safety_notes,
    FieldReport.notes,
    FieldReport.created_by,
    FieldReport.created_at,
    FieldReport.updated_at,
    FieldReport.last_emailed_at,
    FieldReport.email_count,
)


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def list_query(project_id: str, filters: ReportFilters) -> Select[Any]:
    query = select(*COLUMNS).where(
        FieldReport.project_id == project_id, FieldReport.deleted_at.is_(None)
    )
    if filters.status:
        query = query.where(FieldReport.status == filters.status)
    if filters.report_kind:
        query = query.where(FieldReport.report_kind == filters.report_kind)
    if filters.date_from:
        query = query.where(FieldReport.report_date >= filters.date_from)
    if filters.date_to:
        query = query.where(FieldReport.report_date <= filters.date_to)
    if filters.updated_since:
        query = query.where(FieldReport.updated_at >= filters.updated_since)
    if filters.q:
        pattern = _like(filters.q)
        query = query.where(
            or_(
                *(
                    column.ilike(pattern, escape="\\")
                    for column in (
                        FieldReport.title,
                        FieldReport.work_performed,
                        FieldReport.delays,
                        FieldReport.safety_notes,
                        FieldReport.notes,
                    )
                )
            )
        )
    return query


async def rows(db: AsyncSession, query: Select[Any]) -> Sequence[Row[Any]]:
    found: Sequence[Row[Any]] = (await db.execute(query)).all()
    return found


async def get(db: AsyncSession, project_id: str, report_id: str) -> FieldReport | None:
    report: FieldReport | None = (
        await db.execute(
            select(FieldReport).where(
                FieldReport.id == report_id,
                FieldReport.project_id == project_id,
                FieldReport.deleted_at.is_(None),
            )
        )
    ).scalar_one_or_none()
    return report
