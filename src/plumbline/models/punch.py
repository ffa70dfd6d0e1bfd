"""The ``punch_items`` and ``punch_item_assignees`` tables."""

from datetime import date, datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType, ProjectRecordMixin, TimestampMixin
from plumbline.kit import search


class PunchItem(IdMixin, ProjectRecordMixin, TimestampMixin, Base):
    """A deficiency to fix before hand-over; ``punch_number`` is a per-project sequence."""

    __tablename__ = "punch_items"
    __table_args__ = (
        UniqueConstraint("project_id", "punch_number"),
        Index("ix_punch_items_project_id_id", "project_id", "id"),
        Index("ix_punch_items_project_updated_id", "project_id", "updated_at", "id"),
        *search.indexes("punch_items", "title", "notes", "location"),
    )

    punch_number: Mapped[int]
    title: Mapped[str] = mapped_column(String(500))
    location: Mapped[str | None] = mapped_column(String(500))
    trade: Mapped[str | None] = mapped_column(String(200))
    priority: Mapped[str] = mapped_column(String(2), default="P2")
    status: Mapped[str] = mapped_column(String(20), default="OPEN")
    due_date: Mapped[date | None]
    notes: Mapped[str | None] = mapped_column(Text)
    file_version_id: Mapped[str | None] = mapped_column(IdType)
    page_number: Mapped[int | None]
    pin: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    closed_at: Mapped[datetime | None]


class PunchItemAssignee(Base):
    """``assigneeIds`` of a punch item, in the order given (a table so it can be filtered on)."""

    __tablename__ = "punch_item_assignees"

    punch_item_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("punch_items.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(IdType, primary_key=True, index=True)
    position: Mapped[int] = mapped_column(default=0)
