"""The ``inspection_templates`` and ``inspection_runs`` tables."""

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import LIVE, Base, IdMixin, IdType, JSONType, ProjectRecordMixin


class InspectionTemplate(IdMixin, ProjectRecordMixin, Base):
    """A recurring inspection (a checklist of items); ``items`` are stored whole. ``anchor_day``
    is the day of the month the monthly frequencies return to (31 Jan, 28 Feb, 31 Mar), as for
    maintenance schedules."""

    __tablename__ = "inspection_templates"
    __table_args__ = (
        Index("ix_inspection_templates_project_id_id", "project_id", "id"),
        Index("ix_inspection_templates_project_due", "project_id", "next_due_at"),
        Index(
            "ix_inspection_templates_project_updated_id",
            "project_id",
            "updated_at",
            "id",
            sqlite_where=LIVE,
            postgresql_where=LIVE,
        ),
    )

    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text)
    frequency: Mapped[str] = mapped_column(String(20))
    interval_days: Mapped[int | None]
    anchor_day: Mapped[int]
    next_due_at: Mapped[datetime]
    items: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class InspectionRun(IdMixin, ProjectRecordMixin, Base):
    """One walk through a template: the template's items copied at the start (a later edit of
    the template does not change a run under way), the results, and once COMPLETED the signer,
    the failures and the follow-up work orders it raised."""

    __tablename__ = "inspection_runs"
    __table_args__ = (
        Index("ix_inspection_runs_project_id_id", "project_id", "id"),
        Index("ix_inspection_runs_template_id", "template_id"),
        Index("ix_inspection_runs_project_completed", "project_id", "completed_at"),
        Index(
            "ix_inspection_runs_project_updated_id",
            "project_id",
            "updated_at",
            "id",
            sqlite_where=LIVE,
            postgresql_where=LIVE,
        ),
    )

    template_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("inspection_templates.id", ondelete="CASCADE")
    )
    asset_id: Mapped[str | None] = mapped_column(IdType)
    assignee_id: Mapped[str | None] = mapped_column(IdType)
    status: Mapped[str] = mapped_column(String(20), default="DRAFT")
    template_name: Mapped[str] = mapped_column(String(200))
    items: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
    results: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
    signed_by: Mapped[str | None] = mapped_column(String(200))
    completed_at: Mapped[datetime | None]
    completed_by: Mapped[str | None] = mapped_column(IdType)
    failed_count: Mapped[int] = mapped_column(default=0)
    follow_ups: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
