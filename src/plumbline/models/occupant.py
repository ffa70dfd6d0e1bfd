"""The ``occupant_links`` and ``occupant_requests`` tables of the occupant portal."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType


class OccupantLink(IdMixin, Base):
    """A link (or QR code) through which anyone in a building reports a problem; only the
    token's SHA-256 is stored. An asset's own link pre-fills the asset."""

    __tablename__ = "occupant_links"
    __table_args__ = (
        Index("ix_occupant_links_project_id", "project_id", "id"),
        Index("ix_occupant_links_project_created_id", "project_id", "created_at", "id"),
    )

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(IdType)
    label: Mapped[str] = mapped_column(String(200))
    asset_id: Mapped[str | None] = mapped_column(IdType)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]


class OccupantRequest(IdMixin, Base):
    """Who reported an occupant issue, through which link, and the two tokens they hold: the
    tracking token (the status page, no expiry) and the photo token (1 h, that issue only)."""

    __tablename__ = "occupant_requests"

    issue_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("issues.id", ondelete="CASCADE"), unique=True
    )
    link_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("occupant_links.id", ondelete="CASCADE")
    )
    project_id: Mapped[str] = mapped_column(IdType)
    workspace_id: Mapped[str] = mapped_column(IdType)
    reporter_name: Mapped[str] = mapped_column(String(200))
    reporter_email: Mapped[str] = mapped_column(String(320))
    tracking_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    photo_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    photo_token_expires_at: Mapped[datetime]
    created_at: Mapped[datetime]
