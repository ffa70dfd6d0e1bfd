"""The ``jobs`` table: background work and its attempts."""

from datetime import datetime
from typing import Any

from sqlalchemy import Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, JSONType


class Job(IdMixin, Base):
    """Background work written in the request's transaction and run after it commits
    (``plumbline.jobs``). ``errors`` keeps one entry per failed attempt."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_status_run_at", "status", "run_at"),
        Index("ix_jobs_key_created_at", "key", "created_at"),
    )

    name: Mapped[str] = mapped_column(String(80))
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(default=0)
    run_at: Mapped[datetime]
    created_at: Mapped[datetime]
    finished_at: Mapped[datetime | None] = mapped_column(index=True)
    last_error: Mapped[str | None] = mapped_column(Text)
    errors: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    # Jobs of one key run one at a time, in the order queued (``jobs.enqueue(key=)``).
    key: Mapped[str | None] = mapped_column(String(200))
