"""The ``notifications`` table: in-app notifications per user."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType


class Notification(IdMixin, Base):
    __tablename__ = "notifications"
    __table_args__ = (
        Index("ix_notifications_user_id_id", "user_id", "id"),
        Index("ix_notifications_user_created_id", "user_id", "created_at", "id"),
    )

    user_id: Mapped[str] = mapped_column(IdType, ForeignKey("users.id", ondelete="CASCADE"))
    workspace_id: Mapped[str | None] = mapped_column(IdType)
    project_id: Mapped[str | None] = mapped_column(IdType)
    kind: Mapped[str] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(String(500))
    body: Mapped[str | None] = mapped_column(Text)
    href: Mapped[str | None] = mapped_column(String(2000))
    read_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
