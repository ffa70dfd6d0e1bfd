"""A project's webhooks: create (the secret shown once), read, change, delete, rotate the
secret, send a test event, list deliveries and redeliver one."""

from __future__ import annotations

from typing import Any

from orjson import Fragment
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import found
from plumbline.events.hooks import Event
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import Webhook
from plumbline.webhook import dispatch, repository, signing, targets
from plumbline.webhook.errors import (
    DeliveryNotFound,
    DeliveryPending,
    TooManyWebhooks,
    WebhookDisabled,
    WebhookNotFound,
)
from plumbline.webhook.schemas import TEST_TYPE, WebhookCreate, WebhookUpdate

ENTITY = "webhook"
MAX_PER_PROJECT = repository.MAX_PER_PROJECT
AUDITED = ("url", "events", "description", "active")
FIELDS = repository.FIELDS


def delivery_read(row: Any) -> dict[str, Any]:
    """A delivery as answered, from a row of ``repository.DELIVERY_COLUMNS``."""
    return {
        "id": row.event_id,
        "webhookId": row.webhook_id,
        "eventType": row.event_type,
        "resource": row.resource,
        "resourceId": row.resource_id,
        "status": row.status,
        "createdAt": clock.iso(row.created_at),
        "updatedAt": clock.iso(row.updated_at),
        "lastAttemptAt": clock.iso(row.last_attempt_at),
        "nextAttemptAt": clock.iso(row.next_attempt_at),
        "deliveredAt": clock.iso(row.delivered_at),
        "failedAt": clock.iso(row.failed_at),
        "attempts": row.attempts,
        "payload": Fragment(row.body),
    }


def actor_of(ctx: ProjectContext) -> dict[str, str | None]:
    if ctx.principal.api_key is not None:
        return {"type": "key", "id": ctx.principal.key_id}
    return {"type": "user", "id": ctx.user_id}


class WebhookService:
    async def list_webhooks(
        self, db: AsyncSession, ctx: ProjectContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's webhooks, newest first, never their secrets."""
        rows, headers = page.finish(await repository.list_webhooks(db, ctx.project.id, page))
        return [FIELDS.row(row) for row in rows], headers

    async def _load(self, db: AsyncSession, ctx: ProjectContext, webhook_id: str) -> Webhook:
        return found(
            await repository.get_webhook(db, ctx.project.id, webhook_id), WebhookNotFound()
        )

    async def get(self, db: AsyncSession, ctx: ProjectContext, webhook_id: str) -> dict[str, Any]:
        return FIELDS.read(FIELDS.of(await self._load(db, ctx, webhook_id)))

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, data: WebhookCreate
    ) -> dict[str, Any]:
        """The signing secret is in this answer only; the database keeps it encrypted."""
        url = await targets.check_url(data.url)
        if await repository.count_webhooks(db, ctx.project.id) >= MAX_PER_PROJECT:
            raise TooManyWebhooks()
        now, secret = clock.now(), signing.new_secret()
        webhook = Webhook(
            id=new_id(),
            project_id=ctx.project.id,
            workspace_id=ctx.project.workspace_id,
            url=url,
            description=data.description,
            events=list(data.events),
            active=True,
            secret=signing.seal(secret),
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
        )
        db.add(webhook)
        await db.flush()
        changes = created(FIELDS.audited(webhook, AUDITED))
        await audit_change(db, ctx, (ENTITY, webhook.id), "webhook.created", changes)
        return FIELDS.read(FIELDS.of(webhook), secret=secret)

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, webhook_id: str, data: WebhookUpdate
    ) -> dict[str, Any]:
        """``active: true`` re-enables a webhook paused or disabled after failing for days."""
        webhook = await self._load(db, ctx, webhook_id)
        before = FIELDS.audited(webhook, AUDITED)
        sent = data.sent()
        if "url" in sent and sent["url"] != webhook.url:
            webhook.url = await targets.check_url(sent["url"])
        if "events" in sent:
            webhook.events = list(sent["events"])
        if "description" in sent:
            webhook.description = sent["description"]
        if "active" in sent and sent["active"] != webhook.active:
            webhook.active = sent["active"]
            webhook.disabled_reason = None
            webhook.failing_since = None
        await audit_update(
            db, ctx, (ENTITY, webhook), "webhook.updated", before, FIELDS.audited(webhook, AUDITED)
        )
        return FIELDS.read(FIELDS.of(webhook))

    async def delete(self, db: AsyncSession, ctx: ProjectContext, webhook_id: str) -> None:
        """Its deliveries go with it; their queued jobs find nothing left to send."""
        webhook = await self._load(db, ctx, webhook_id)
        await db.delete(webhook)
        changes = {"url": [webhook.url, None]}
        await audit_change(db, ctx, (ENTITY, webhook.id), "webhook.deleted", changes)

    async def rotate_secret(
        self, db: AsyncSession, ctx: ProjectContext, webhook_id: str
    ) -> dict[str, Any]:
        """A new secret, shown in this answer only; the previous one signs beside it for
        ``signing.ROTATION_OVERLAP``."""
        webhook = await self._load(db, ctx, webhook_id)
        now = clock.now()
        secret = signing.rotate(webhook, now)
        webhook.updated_at = now
        await db.flush()
        expires = clock.iso(webhook.previous_secret_expires_at)
        changes = {"previousSecretExpiresAt": [None, expires]}
        await audit_change(db, ctx, (ENTITY, webhook.id), "webhook.secret_rotated", changes)
        return FIELDS.read(FIELDS.of(webhook), secret=secret)

    async def send_test(
        self, uow: UnitOfWork, ctx: ProjectContext, webhook_id: str
    ) -> dict[str, Any]:
        """A ``webhook.test`` event to this webhook alone, through the same delivery path (a
        job, after this request commits); the delivery answered is pending."""
        webhook = await self._load(uow.session, ctx, webhook_id)
        if not webhook.active:
            raise WebhookDisabled()
        event = Event(
            id=new_id(),
            seq=0,  # not an event of the project's stream: only this webhook is sent it
            stream=webhook.project_id,
            type=TEST_TYPE,
            created_at=clock.now(),
            workspace_id=webhook.workspace_id,
            project_id=webhook.project_id,
            actor=actor_of(ctx),
            resource=ENTITY,
            resource_id=webhook.id,
            data={"webhookId": webhook.id, "message": "A test event from Plumbline"},
        )
        await dispatch.queue(uow, [(webhook.id, event)])
        return await self._delivery(uow.session, webhook.id, event.id)

    async def _delivery(self, db: AsyncSession, webhook_id: str, event_id: str) -> dict[str, Any]:
        row = found(await repository.delivery_row(db, webhook_id, event_id), DeliveryNotFound())
        return delivery_read(row)

    async def deliveries(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        webhook_id: str,
        status: str | None,
        page: PageParams,
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The webhook's deliveries, newest event first, each with its attempts."""
        webhook = await self._load(db, ctx, webhook_id)
        rows = await repository.list_deliveries(db, webhook.id, status, page)
        rows, headers = page.finish(rows, last_id=lambda row: row.event_id)
        return [delivery_read(row) for row in rows], headers

    async def redeliver(
        self, uow: UnitOfWork, ctx: ProjectContext, webhook_id: str, delivery_id: str
    ) -> dict[str, Any]:
        """Send a delivered or failed delivery again (same id and body), after the later
        deliveries of its record already queued; the retry window starts again."""
        webhook = await self._load(uow.session, ctx, webhook_id)
        if not webhook.active:
            raise WebhookDisabled()
        delivery = found(
            await repository.get_delivery(uow.session, webhook.id, delivery_id), DeliveryNotFound()
        )
        if delivery.status == dispatch.PENDING:
            raise DeliveryPending()
        dispatch.requeue(uow, delivery)
        await uow.session.flush()
        await audit_change(
            uow.session,
            ctx,
            (ENTITY, webhook.id),
            "webhook.redelivered",
            {"deliveryId": [None, delivery.event_id]},
        )
        return await self._delivery(uow.session, webhook.id, delivery.event_id)


webhook = WebhookService()
