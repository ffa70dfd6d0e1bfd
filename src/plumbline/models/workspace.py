"""Workspaces, memberships, link invites and e-mail invites."""

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType, TimestampMixin


class Workspace(IdMixin, TimestampMixin, Base):
    __tablename__ = "workspaces"

    name: Mapped[str] = mapped_column(String(200))
    slug: Mapped[str] = mapped_column(String(80), unique=True)
    logo_key: Mapped[str | None] = mapped_column(String(500))
    logo_content_type: Mapped[str | None] = mapped_column(String(100))
    primary_color: Mapped[str | None] = mapped_column(String(16))
    plan: Mapped[str] = mapped_column(String(20), default="trial")
    subscription_status: Mapped[str] = mapped_column(String(20), default="trialing")
    trial_ends_at: Mapped[datetime | None]
    billing_customer_id: Mapped[str | None] = mapped_column(String(200))
    billing_subscription_id: Mapped[str | None] = mapped_column(String(200))
    # When the processor created the last subscription event applied (older ones are stale).
    billing_event_at: Mapped[datetime | None]
    storage_used_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    created_by: Mapped[str | None] = mapped_column(IdType)
    deleted_at: Mapped[datetime | None]


class Membership(IdMixin, Base):
    """A user's place in a workspace; ``restricted`` limits them to their project_members rows."""

    __tablename__ = "memberships"
    __table_args__ = (
        UniqueConstraint("workspace_id", "user_id"),
        Index("ix_memberships_workspace_id_id", "workspace_id", "id"),
        Index("ix_memberships_workspace_joined_id", "workspace_id", "joined_at", "id"),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    user_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(20))
    is_external: Mapped[bool] = mapped_column(default=False)
    restricted: Mapped[bool] = mapped_column(default=False)
    joined_at: Mapped[datetime]


class Invite(IdMixin, Base):
    """A shareable link that joins whoever opens it to the workspace with a role."""

    __tablename__ = "invites"
    __table_args__ = (
        Index("ix_invites_workspace_id_id", "workspace_id", "id"),
        Index("ix_invites_workspace_created_id", "workspace_id", "created_at", "id"),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    role: Mapped[str] = mapped_column(String(20))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]


class EmailInvite(IdMixin, Base):
    __tablename__ = "email_invites"
    __table_args__ = (
        Index("ix_email_invites_workspace_id_id", "workspace_id", "id"),
        Index("ix_email_invites_workspace_created_id", "workspace_id", "created_at", "id"),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    email: Mapped[str] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(20))
    project_ids: Mapped[list[str]] = mapped_column(JSONType, default=list)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime]
    accepted_at: Mapped[datetime | None]
    accepted_by: Mapped[str | None] = mapped_column(IdType)
    revoked_at: Mapped[datetime | None]
    send_count: Mapped[int] = mapped_column(default=1)
    last_sent_at: Mapped[datetime]
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
