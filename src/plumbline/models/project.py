"""Projects, their named members and their per-project number counters."""

from datetime import date, datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import LIVE, Base, IdMixin, IdType, JSONType, TimestampMixin


class Project(IdMixin, TimestampMixin, Base):
    __tablename__ = "projects"
    __table_args__ = (
        Index("ix_projects_workspace_created", "workspace_id", "created_at"),
        Index(
            "ix_projects_workspace_id_id",
            "workspace_id",
            "id",
            sqlite_where=LIVE,
            postgresql_where=LIVE,
        ),
        Index(
            "ix_projects_workspace_updated_id",
            "workspace_id",
            "updated_at",
            "id",
            sqlite_where=LIVE,
            postgresql_where=LIVE,
        ),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(200))
    location: Mapped[str | None] = mapped_column(String(500))
    currency: Mapped[str] = mapped_column(String(3), default="USD")
    stage: Mapped[str] = mapped_column(String(32), default="Planning")
    start_date: Mapped[date | None]
    end_date: Mapped[date | None]
    project_number: Mapped[str | None] = mapped_column(String(64))
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    operations_mode: Mapped[bool] = mapped_column(default=False)
    modules: Mapped[dict[str, bool]] = mapped_column(JSONType, default=dict)
    client_visibility: Mapped[dict[str, bool]] = mapped_column(JSONType, default=dict)
    settings: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    created_by: Mapped[str | None] = mapped_column(IdType)
    deleted_at: Mapped[datetime | None]


class ProjectMember(IdMixin, Base):
    """Named access to a project: restricted internal members and external collaborators."""

    __tablename__ = "project_members"
    __table_args__ = (UniqueConstraint("project_id", "user_id"),)

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    project_role: Mapped[str | None] = mapped_column(String(20))
    created_at: Mapped[datetime]


class ProjectCounter(Base):
    """Per-project sequences (issue, rfi, punch, proposal numbers): never reused."""

    __tablename__ = "project_counters"

    project_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(default=0)
