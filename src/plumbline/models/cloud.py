"""The ``cloud_connections`` and ``cloud_authorizations`` tables (tokens sealed)."""

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, TimestampMixin


class CloudConnection(IdMixin, TimestampMixin, Base):
    """A user's link to one cloud-storage account; the tokens are Fernet-encrypted with a key
    derived from the secret key (``kit.crypto.encrypt``). ``created_at`` is when it connected."""

    __tablename__ = "cloud_connections"
    __table_args__ = (UniqueConstraint("user_id", "provider"),)

    user_id: Mapped[str] = mapped_column(IdType, ForeignKey("users.id", ondelete="CASCADE"))
    provider: Mapped[str] = mapped_column(String(20))
    account_id: Mapped[str | None] = mapped_column(String(200))
    account_email: Mapped[str | None] = mapped_column(String(320))
    account_name: Mapped[str | None] = mapped_column(String(200))
    access_token: Mapped[str] = mapped_column(Text)
    refresh_token: Mapped[str | None] = mapped_column(Text)
    expires_at: Mapped[datetime | None]
    # ACTIVE, or RECONNECT_REQUIRED once the provider refused the refresh token
    status: Mapped[str] = mapped_column(String(30), default="ACTIVE")


class CloudAuthorization(IdMixin, Base):
    """An authorization in progress: the PKCE verifier (encrypted) stays here, never in the
    browser; the signed ``state`` names this row, and the callback consumes it once."""

    __tablename__ = "cloud_authorizations"

    user_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    provider: Mapped[str] = mapped_column(String(20))
    code_verifier: Mapped[str] = mapped_column(Text)
    return_to: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
