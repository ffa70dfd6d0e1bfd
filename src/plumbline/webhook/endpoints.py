"""``/projects/{projectId}/webhooks``: receivers of the project's events, their secrets, a test
event, and the deliveries with every attempt."""

from typing import Annotated, Literal

from fastapi import Query

from plumbline.db import DB, UoW
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.openapi import errors
from plumbline.routing import make_router
from plumbline.webhook.auth import CanReadWebhooks, CanWriteWebhooks
from plumbline.webhook.schemas import (
    WebhookCreate,
    WebhookDeliveryRead,
    WebhookRead,
    WebhookUpdate,
    WebhookWithSecret,
)
from plumbline.webhook.service import webhook as webhook_service

router = make_router(prefix="/projects/{projectId}/webhooks", tags=["webhooks"])
Status = Annotated[
    Literal["pending", "delivered", "failed"] | None, Query(description="Only this status")
]


@router.get("", response_model=list[WebhookRead])
async def list_webhooks(ctx: CanReadWebhooks, db: DB, page: Page) -> ORJSONResponse:
    """The project's webhooks (never their secrets), newest first."""
    return ORJSONResponse.page(await webhook_service.list_webhooks(db, ctx, page))


@router.post("", response_model=WebhookWithSecret, responses=errors(409))
async def create_webhook(ctx: CanWriteWebhooks, db: DB, body: WebhookCreate) -> ORJSONResponse:
    """Create a webhook; its signing secret (secret) is shown in this response only."""
    return ORJSONResponse(await webhook_service.create(db, ctx, body))


@router.get("/{webhookId}", response_model=WebhookRead)
async def get_webhook(ctx: CanReadWebhooks, db: DB, webhookId: str) -> ORJSONResponse:
    """One webhook."""
    return ORJSONResponse(await webhook_service.get(db, ctx, webhookId))


@router.patch("/{webhookId}", response_model=WebhookRead)
async def update_webhook(
    ctx: CanWriteWebhooks, db: DB, webhookId: str, body: WebhookUpdate
) -> ORJSONResponse:
    """Change a webhook's URL, events or description; active pauses or re-enables it."""
    return ORJSONResponse(await webhook_service.update(db, ctx, webhookId, body))


@router.delete("/{webhookId}", response_model=Ok)
async def delete_webhook(ctx: CanWriteWebhooks, db: DB, webhookId: str) -> ORJSONResponse:
    """Delete a webhook and its deliveries."""
    await webhook_service.delete(db, ctx, webhookId)
    return ORJSONResponse({"ok": True})


@router.post("/{webhookId}/rotate-secret", response_model=WebhookWithSecret)
async def rotate_webhook_secret(ctx: CanWriteWebhooks, db: DB, webhookId: str) -> ORJSONResponse:
    """A new signing secret, shown in this response only; the old one signs too for 24 h."""
    return ORJSONResponse(await webhook_service.rotate_secret(db, ctx, webhookId))


@router.post("/{webhookId}/test", response_model=WebhookDeliveryRead, responses=errors(409))
async def test_webhook(ctx: CanWriteWebhooks, uow: UoW, webhookId: str) -> ORJSONResponse:
    """Send a webhook.test event now, as any event is sent; answers its pending delivery."""
    return ORJSONResponse(await webhook_service.send_test(uow, ctx, webhookId))


@router.get("/{webhookId}/deliveries", response_model=list[WebhookDeliveryRead])
async def list_deliveries(
    ctx: CanReadWebhooks, db: DB, webhookId: str, page: Page, status: Status = None
) -> ORJSONResponse:
    """The webhook's deliveries, newest first, each with its attempts (filter: status)."""
    return ORJSONResponse.page(await webhook_service.deliveries(db, ctx, webhookId, status, page))


@router.post(
    "/{webhookId}/deliveries/{deliveryId}/redeliver",
    response_model=WebhookDeliveryRead,
    responses=errors(409),
)
async def redeliver(
    ctx: CanWriteWebhooks, uow: UoW, webhookId: str, deliveryId: str
) -> ORJSONResponse:
    """Send a delivered or failed delivery again, with the same id and body."""
    return ORJSONResponse(await webhook_service.redeliver(uow, ctx, webhookId, deliveryId))
