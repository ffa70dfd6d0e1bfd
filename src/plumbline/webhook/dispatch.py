"""Events to deliveries: in the write's own transaction, one delivery row and one job per
subscribed webhook, so a rolled-back write sends nothing and a committed one is never lost.

Order: a delivery's job has the key ``webhook:<id>:<resource>:<resourceId>``, and the job kit
runs the jobs of one key one at a time in the order queued: a later change of a record waits
until the earlier one is delivered or given up (``jobs.enqueue(key=)``)."""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from plumbline.db import UnitOfWork
from plumbline.events.hooks import Event
from plumbline.jobs import enqueue, unit_of_work
from plumbline.jobs.runner import job_row, run_after
from plumbline.kit import clock, encoding
from plumbline.kit.ids import new_id
from plumbline.models import WebhookDelivery
from plumbline.webhook import repository

DELIVER = "webhook.deliver"
PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
SKIP_HEADER = "X-Plumbline-Skip-Webhooks"
_SKIP = SKIP_HEADER.lower().encode()

# The webhooks the current request asked not to notify (an integration writing back).
skipped_var: ContextVar[frozenset[str]] = ContextVar("skipped_webhooks", default=frozenset())


def ordering_key(webhook_id: str, resource: str, resource_id: str) -> str:
    return f"webhook:{webhook_id}:{resource}:{resource_id}"


async def queue(uow: UnitOfWork, sends: Sequence[tuple[str, Event]]) -> None:
    """Write the deliveries of these (webhook id, event) pairs and their jobs, in ``uow``."""
    now = clock.now()
    deliveries, jobs = [], []
    for webhook_id, event in sends:
        key = ordering_key(webhook_id, event.resource, event.resource_id)
        job = job_row(DELIVER, {"webhookId": webhook_id, "eventId": event.id}, key=key, now=now)
        jobs.append(job)
        deliveries.append(
            {
                "webhook_id": webhook_id,
                "event_id": event.id,
                "project_id": event.project_id,
                "event_type": event.type,
                "resource": event.resource,
                "resource_id": event.resource_id,
                "body": encoding.dumps(event.body()).decode(),
                "status": PENDING,
                "attempts": [],
                "job_id": job["id"],
                "created_at": now,
                "updated_at": now,
                "last_attempt_at": None,
                "delivered_at": None,
                "failed_at": None,
            }
        )
    await repository.insert_deliveries(uow.session, deliveries, jobs)
    run_after(uow, [job["id"] for job in jobs])


def requeue(uow: UnitOfWork, delivery: WebhookDelivery) -> None:
    """Send ``delivery`` again: pending, with a new job after those of its record queued."""
    key = ordering_key(delivery.webhook_id, delivery.resource, delivery.resource_id)
    payload = {"webhookId": delivery.webhook_id, "eventId": delivery.event_id}
    delivery.job_id = enqueue(uow, DELIVER, payload, key=key).id
    delivery.status = PENDING
    delivery.delivered_at = delivery.failed_at = None
    delivery.updated_at = clock.now()


async def on_written(db: AsyncSession, events: Sequence[Event]) -> None:
    """``events.hooks.on_written``: the deliveries of these events to the active webhooks of
    their projects subscribed to their types, but those the request skipped."""
    projects = {event.project_id for event in events if event.project_id is not None}
    if not projects:
        return
    if len(events) == 1 and (await db.connection()).dialect.name == "postgresql":
        await _queue_one(db, events[0])
        return
    hooks = await repository.subscribed(db, projects)
    if not hooks:
        return
    skipped = skipped_var.get()
    sends = [
        (hook.id, event)
        for event in events
        for hook in hooks
        if hook.project_id == event.project_id
        and event.type in hook.events
        and hook.id not in skipped
    ]
    if sends:
        await queue(unit_of_work(db), sends)


async def _queue_one(db: AsyncSession, event: Event) -> None:
    """One event (most writes): found, written and queued in one statement on PostgreSQL,
    whether any webhook wants it or not. It runs while the project's event numbering is held
    (``events.log``), so a write with a webhook keeps it no longer than one without."""
    key = ordering_key("", event.resource, event.resource_id)  # "webhook::<resource>:<id>"
    prefix, suffix = key.split("::", 1)
    ids = await repository.queue_one(
        db,
        event,
        body=encoding.dumps(event.body()).decode(),
        skipped=sorted(skipped_var.get()),
        key_prefix=f"{prefix}:",
        key_suffix=f":{suffix}",
        job_ids=[new_id() for _ in range(repository.MAX_PER_PROJECT)],
        now=clock.now(),
    )
    run_after(unit_of_work(db), ids)


class SkipWebhooksMiddleware:
    """Reads ``X-Plumbline-Skip-Webhooks: <webhookId>[, <webhookId>...]`` into
    ``skipped_var`` for the request; the work run after its response (inline jobs) no longer
    sees it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        named = [value for name, value in scope["headers"] if name == _SKIP]
        if not named:
            await self.app(scope, receive, send)
            return
        text = b",".join(named).decode("latin-1")
        token = skipped_var.set(frozenset(w.strip() for w in text.split(",") if w.strip()))

        async def answered(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body"):
                skipped_var.set(frozenset())
            await send(message)

        try:
            await self.app(scope, receive, answered)
        finally:
            skipped_var.reset(token)
