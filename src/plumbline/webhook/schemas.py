"""Webhook requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StringConstraints, field_validator

from plumbline.events.catalogue import TYPES
from plumbline.kit.schema import Flag, Patch, Schema
from plumbline.webhook.targets import MAX_URL

TEST_TYPE = "webhook.test"  # sent by POST .../test, to every webhook whatever it subscribes to

Url = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_URL),
    Field(
        description="Where events are POSTed: a public http(s) URL",
        json_schema_extra={"format": "uri", "pattern": "^https?://[^\\s/:@]+"},
        examples=["https://erp.example.com/plumbline/webhooks"],
    ),
]
Description = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)]
EventTypes = Annotated[
    list[Literal[TYPES]],  # type: ignore[valid-type]
    Field(min_length=1, max_length=len(TYPES), description="The event types to receive"),
]


def _unique(value: list[str]) -> list[str]:
    return list(dict.fromkeys(value))


class WebhookCreate(Schema):
    url: Url
    events: EventTypes
    description: Description | None = None

    _events = field_validator("events")(_unique)


class WebhookUpdate(Patch):
    not_null: ClassVar[tuple[str, ...]] = ("url", "events", "active")

    url: Url | None = None
    events: EventTypes | None = None
    description: Description | None = None
    active: Flag | None = Field(None, description="false pauses it; true re-enables it")

    @field_validator("events")
    @classmethod
    def _unique_events(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else _unique(value)


class WebhookRead(Schema):
    id: str
    project_id: str
    url: str
    description: str | None
    events: list[str]
    active: bool
    disabled_reason: str | None = Field(description="Why the service disabled it, if it did")
    failing_since: datetime | None = Field(
        description="The first failed attempt since the last delivered one"
    )
    previous_secret_expires_at: datetime | None = Field(
        description="Until then the secret before the last rotation signs too"
    )
    created_by: str | None
    created_at: datetime
    updated_at: datetime


class WebhookWithSecret(WebhookRead):
    secret: str = Field(description="The signing secret (whsec_...), shown in this answer only")


class WebhookAttempt(Schema):
    at: datetime
    status_code: int | None
    duration_ms: int
    response: str | None = Field(description="The first KiB of the receiver's answer")
    error: str | None


class WebhookDeliveryRead(Schema):
    id: str = Field(description="The event's id: the webhook-id header of every attempt")
    webhook_id: str
    event_type: str
    resource: str
    resource_id: str
    status: Literal["pending", "delivered", "failed"]
    created_at: datetime
    updated_at: datetime
    last_attempt_at: datetime | None
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    failed_at: datetime | None
    attempts: list[WebhookAttempt]
    payload: dict[str, Any] = Field(description="The body sent")


class WebhookEvent(Schema):
    """What a webhook receives: one event."""

    id: str = Field(description="The event's id, also the webhook-id header")
    type: str
    created_at: datetime
    project_id: str | None
    actor: dict[str, str | None] = Field(
        description='{"type": "user"|"key"|"public"|"system", "id"}'
    )
    data: dict[str, Any] = Field(
        description="The resource exactly as the API returns it; once deleted, a tombstone "
        "{type, id, deletedAt}"
    )
