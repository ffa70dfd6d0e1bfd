"""The ``issues`` and ``issue_comments`` tables."""

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType, ProjectRecordMixin
from plumbline.kit import search

LIVE_EXTERNAL = text("deleted_at IS NULL AND external_id IS NOT NULL")


class Issue(IdMixin, ProjectRecordMixin, Base):
    """An issue, work order or occupant request; soft-deleted so its number is never reused."""

    __tablename__ = "issues"
    __table_args__ = (
        UniqueConstraint("project_id", "number"),
        Index("ix_issues_project_id", "project_id", "id"),
        Index("ix_issues_project_status", "project_id", "status"),
        Index("ix_issues_project_assignee", "project_id", "assignee_id"),
        Index("ix_issues_project_updated_id", "project_id", "updated_at", "id"),
        Index("ix_issues_project_kind", "project_id", "issue_kind"),
        Index("ix_issues_maintenance_schedule", "maintenance_schedule_id"),
        *search.indexes("issues", "title", "description"),
        # the caller's key, unique among the project's live issues that have one
        Index(
            "uq_issues_project_external_id_live",
            "project_id",
            "external_id",
            unique=True,
            sqlite_where=LIVE_EXTERNAL,
            postgresql_where=LIVE_EXTERNAL,
        ),
    )

    number: Mapped[int]
    external_id: Mapped[str | None] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(500))
    description: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default="OPEN")
    priority: Mapped[str] = mapped_column(String(10), default="MEDIUM")
    issue_kind: Mapped[str] = mapped_column(String(20), default="CONSTRUCTION")
    assignee_id: Mapped[str | None] = mapped_column(IdType)
    due_date: Mapped[date | None]
    location: Mapped[str | None] = mapped_column(String(500))
    file_id: Mapped[str | None] = mapped_column(IdType)
    file_version_id: Mapped[str | None] = mapped_column(IdType)
    page_number: Mapped[int | None]
    pin: Mapped[dict[str, float] | None] = mapped_column(JSONType)
    asset_id: Mapped[str | None] = mapped_column(IdType)
    work_order_type: Mapped[str | None] = mapped_column(String(30))
    maintenance_schedule_id: Mapped[str | None] = mapped_column(IdType)
    checklist: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    # A work order's cost totals {parts, labour, other, total} (decimal strings), kept by
    # om.costs in the transaction that changes its lines; null for a construction issue. Plain
    # JSON, not JSONB: PostgreSQL keeps the keys in their order.
    costs: Mapped[dict[str, str] | None] = mapped_column(JSON)
    created_key_id: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    status_changed_at: Mapped[datetime | None]
    resolved_at: Mapped[datetime | None]
    closed_at: Mapped[datetime | None]


class IssueComment(IdMixin, Base):
    """A comment on an issue, by a user or (``author_id`` null) by an API key."""

    __tablename__ = "issue_comments"
    __table_args__ = (
        Index("ix_issue_comments_issue_id", "issue_id", "id"),
        Index("ix_issue_comments_issue_created_id", "issue_id", "created_at", "id"),
    )

    issue_id: Mapped[str] = mapped_column(IdType, ForeignKey("issues.id", ondelete="CASCADE"))
    project_id: Mapped[str] = mapped_column(IdType)
    workspace_id: Mapped[str] = mapped_column(IdType)
    body: Mapped[str] = mapped_column(Text)
    author_id: Mapped[str | None] = mapped_column(IdType)
    author_key_id: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
