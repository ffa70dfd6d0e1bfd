"""RFIs, their assignees and their message thread."""

from datetime import date, datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType, ProjectRecordMixin, TimestampMixin
from plumbline.kit import search


class Rfi(IdMixin, ProjectRecordMixin, TimestampMixin, Base):
    """A request for information: OPEN -> IN_REVIEW -> ANSWERED -> CLOSED.

    Responders live in ``rfi_assignees`` (so lists can filter by them); ``official_response``
    snapshots the message named as the answer: ``{"messageId", "body"}``."""

    __tablename__ = "rfis"
    __table_args__ = (
        UniqueConstraint("project_id", "rfi_number"),
        Index("ix_rfis_project_id", "project_id", "id"),
        Index("ix_rfis_project_updated_id", "project_id", "updated_at", "id"),
        *search.indexes("rfis", "title", "question"),
    )

    rfi_number: Mapped[int]
    title: Mapped[str] = mapped_column(String(300))
    question: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default="OPEN")
    priority: Mapped[str] = mapped_column(String(10), default="MEDIUM")
    due_date: Mapped[date | None]
    manager_id: Mapped[str | None] = mapped_column(IdType)
    issue_ids: Mapped[list[str]] = mapped_column(JSONType, default=list)
    file_version_id: Mapped[str | None] = mapped_column(IdType)
    page_number: Mapped[int | None]
    pin: Mapped[dict[str, float] | None] = mapped_column(JSONType)
    official_response: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    answered_at: Mapped[datetime | None]
    answered_by: Mapped[str | None] = mapped_column(IdType)
    closed_at: Mapped[datetime | None]


class RfiAssignee(Base):
    """A responder on an RFI; ``position`` keeps the order they were given in."""

    __tablename__ = "rfi_assignees"
    __table_args__ = (Index("ix_rfi_assignees_user_id", "user_id"),)

    rfi_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("rfis.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(IdType, primary_key=True)
    position: Mapped[int] = mapped_column(default=0)


class RfiMessage(IdMixin, Base):
    """One message of an RFI's thread; ``body`` is sanitised HTML."""

    __tablename__ = "rfi_messages"
    __table_args__ = (
        Index("ix_rfi_messages_rfi_id", "rfi_id", "id"),
        Index("ix_rfi_messages_rfi_created_id", "rfi_id", "created_at", "id"),
    )

    rfi_id: Mapped[str] = mapped_column(IdType, ForeignKey("rfis.id", ondelete="CASCADE"))
    project_id: Mapped[str] = mapped_column(IdType)
    workspace_id: Mapped[str] = mapped_column(IdType)
    body: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_key_id: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
