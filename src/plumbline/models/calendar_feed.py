"""The ``calendar_feeds`` table: secret iCalendar feed URLs, stored as hashes."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType


class CalendarFeed(IdMixin, Base):
    """One subscription URL: a user's own feed (``project_id`` null: what is due for them) or a
    project's feed, read with its owner's access at every fetch. Revoked feeds keep their row."""

    __tablename__ = "calendar_feeds"
    __table_args__ = (
        Index("ix_calendar_feeds_user_id", "user_id", "id"),
        Index("ix_calendar_feeds_project_id", "project_id", "id"),
        Index("ix_calendar_feeds_user_created_id", "user_id", "created_at", "id"),
        Index("ix_calendar_feeds_project_created_id", "project_id", "created_at", "id"),
    )

    user_id: Mapped[str] = mapped_column(IdType, ForeignKey("users.id", ondelete="CASCADE"))
    project_id: Mapped[str | None] = mapped_column(
        IdType, ForeignKey("projects.id", ondelete="CASCADE")
    )
    workspace_id: Mapped[str | None] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
