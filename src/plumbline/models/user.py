"""Users, their sessions and their one-time tokens (verification, password reset)."""

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, TimestampMixin


class User(IdMixin, TimestampMixin, Base):
    __tablename__ = "users"

    name: Mapped[str] = mapped_column(String(200))
    email: Mapped[str] = mapped_column(String(320), unique=True)
    email_verified: Mapped[bool] = mapped_column(default=False)
    image: Mapped[str | None] = mapped_column(String(2000))
    password_hash: Mapped[str | None] = mapped_column(String(200))
    presence_hidden: Mapped[bool] = mapped_column(default=False)


class AuthSession(IdMixin, TimestampMixin, Base):
    """A signed-in browser; only the SHA-256 of its token is stored."""

    __tablename__ = "sessions"

    user_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime]
    remember: Mapped[bool] = mapped_column(default=True)
    ip_address: Mapped[str | None] = mapped_column(String(64))
    user_agent: Mapped[str | None] = mapped_column(String(500))


class UserToken(IdMixin, Base):
    """Single-use e-mail verification and password reset tokens, stored hashed."""

    __tablename__ = "user_tokens"

    user_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    purpose: Mapped[str] = mapped_column(String(32))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    email: Mapped[str] = mapped_column(String(320))
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
