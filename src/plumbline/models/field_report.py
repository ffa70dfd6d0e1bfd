"""The ``field_reports`` table."""

from datetime import date, datetime
from typing import Any

from sqlalchemy import Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, JSONType, ProjectRecordMixin, TimestampMixin
from plumbline.kit import search


class FieldReport(IdMixin, ProjectRecordMixin, TimestampMixin, Base):
    """A daily or weekly site report; ``totalWorkers`` is derived from ``manpower``."""

    __tablename__ = "field_reports"
    __table_args__ = (
        Index("ix_field_reports_project_id_id", "project_id", "id"),
        Index("ix_field_reports_project_date", "project_id", "report_date"),
        Index("ix_field_reports_project_updated_id", "project_id", "updated_at", "id"),
        *search.indexes(
            "field_reports", "title", "work_performed", "delays", "safety_notes", "notes"
        ),
    )

    title: Mapped[str] = mapped_column(String(500))
    report_date: Mapped[date]
    report_kind: Mapped[str] = mapped_column(String(10), default="DAILY")
    status: Mapped[str] = mapped_column(String(10), default="DRAFT")
    weather: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    manpower: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    work_performed: Mapped[str | None] = mapped_column(Text)
    delays: Mapped[str | None] = mapped_column(Text)
    safety_notes: Mapped[str | None] = mapped_column(Text)
    notes: Mapped[str | None] = mapped_column(Text)
    last_emailed_at: Mapped[datetime | None]
    email_count: Mapped[int] = mapped_column(default=0)
