"""The ``audit_logs`` table: one row per audited write."""

from datetime import datetime
from typing import Any

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType


class AuditLog(IdMixin, Base):
    """Append-only record of a write: who, what, which entity, old and new values."""

    __tablename__ = "audit_logs"
    __table_args__ = (
        Index("ix_audit_logs_project_id_id", "project_id", "id"),
        Index("ix_audit_logs_project_created_id", "project_id", "created_at", "id"),
        Index("ix_audit_logs_project_entity_id", "project_id", "entity_id", "id"),
        Index("ix_audit_logs_workspace_created", "workspace_id", "created_at"),
    )

    workspace_id: Mapped[str | None] = mapped_column(IdType)
    project_id: Mapped[str | None] = mapped_column(IdType)
    actor: Mapped[str] = mapped_column(String(16))
    actor_user_id: Mapped[str | None] = mapped_column(IdType)
    actor_key_id: Mapped[str | None] = mapped_column(IdType)
    action: Mapped[str] = mapped_column(String(64))
    entity_type: Mapped[str] = mapped_column(String(64))
    entity_id: Mapped[str | None] = mapped_column(IdType)
    changes: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    request_id: Mapped[str | None] = mapped_column(String(128))
    ip: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
