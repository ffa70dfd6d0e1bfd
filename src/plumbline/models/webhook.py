"""The ``webhooks`` table (a project's receivers) and ``webhook_deliveries`` (one event sent to
one receiver, with every attempt)."""

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType


class Webhook(IdMixin, Base):
    """A receiver of a project's events. The signing secret (and, for a while after a rotation,
    the previous one) is Fernet-encrypted with a key derived from the secret key
    (``kit.crypto.encrypt``); ``failing_since`` is the first failed attempt since the last
    delivered one."""

    __tablename__ = "webhooks"
    __table_args__ = (
        Index("ix_webhooks_project_id_id", "project_id", "id"),
        Index("ix_webhooks_project_updated_id", "project_id", "updated_at", "id"),
    )

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(IdType)
    url: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str | None] = mapped_column(String(500))
    events: Mapped[list[str]] = mapped_column(JSONType, default=list)
    active: Mapped[bool] = mapped_column(default=True)
    disabled_reason: Mapped[str | None] = mapped_column(String(500))
    secret: Mapped[str] = mapped_column(Text)
    previous_secret: Mapped[str | None] = mapped_column(Text)
    previous_secret_expires_at: Mapped[datetime | None]
    failing_since: Mapped[datetime | None]
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class WebhookDelivery(Base):
    """One event for one webhook, named by the event's id (the ``webhook-id`` header, the same
    on every attempt). ``attempts`` logs each try; ``job_id`` is the job sending it; the
    resource orders the deliveries of one webhook (``webhook.dispatch``)."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index(
            "ix_webhook_deliveries_webhook_updated_event", "webhook_id", "updated_at", "event_id"
        ),
    )

    webhook_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("webhooks.id", ondelete="CASCADE"), primary_key=True
    )
    event_id: Mapped[str] = mapped_column(IdType, primary_key=True)
    project_id: Mapped[str] = mapped_column(IdType)
    event_type: Mapped[str] = mapped_column(String(80))
    resource: Mapped[str] = mapped_column(String(40))
    resource_id: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)  # the JSON sent, the same bytes on every attempt
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    job_id: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]  # queued, each attempt, given up, queued again
    last_attempt_at: Mapped[datetime | None]
    delivered_at: Mapped[datetime | None]
    failed_at: Mapped[datetime | None]
