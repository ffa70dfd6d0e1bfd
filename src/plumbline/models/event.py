"""The ``events`` table (one row per change integrators follow) and its per-stream counters."""

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType


class EventLog(IdMixin, Base):
    """A change of a resource, as webhooks send it and the change feed answers it.

    ``stream`` is the feed it belongs to: its project, or its workspace for workspace resources
    (materials); ``seq`` numbers a stream's events in commit order."""

    __tablename__ = "events"
    __table_args__ = (
        UniqueConstraint("stream", "seq"),
        Index("ix_events_created_at", "created_at"),
    )

    stream: Mapped[str] = mapped_column(IdType)
    seq: Mapped[int] = mapped_column(BigInteger)
    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    project_id: Mapped[str | None] = mapped_column(IdType)
    type: Mapped[str] = mapped_column(String(64))
    resource: Mapped[str] = mapped_column(String(32))
    resource_id: Mapped[str] = mapped_column(IdType)
    actor: Mapped[dict[str, Any]] = mapped_column(JSONType)
    data: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime]


class EventStream(Base):
    """A stream's last sequence number (its row lock orders the stream's commits) and the last
    one purged by retention (a cursor before it can no longer be served)."""

    __tablename__ = "event_streams"

    id: Mapped[str] = mapped_column(IdType, primary_key=True)
    last_seq: Mapped[int] = mapped_column(BigInteger, default=0)
    purged_seq: Mapped[int] = mapped_column(BigInteger, default=0)
