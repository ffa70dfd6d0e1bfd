"""Every query of the webhooks and their deliveries, each within one project or webhook."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, case, delete, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import Role
from plumbline.db import Rows, UTCDateTime
from plumbline.events.hooks import Event
from plumbline.kit import encoding
from plumbline.kit.pagination import PageParams
from plumbline.models import Job, Membership, Webhook, WebhookDelivery
from plumbline.records.fields import Fields

MAX_PER_PROJECT = 20  # webhooks a project may have
# A webhook as answered, in order; never its secrets.
FIELDS = Fields(
    Webhook.__table__,
    {
        "id": "id",
        "projectId": "project_id",
        "url": "url",
        "description": "description",
        "events": "events",
        "active": "active",
        "disabledReason": "disabled_reason",
        "failingSince": "failing_since",
        "previousSecretExpiresAt": "previous_secret_expires_at",
        "createdBy": "created_by",
        "createdAt": "created_at",
        "updatedAt": "updated_at",
    },
)

DELIVERY_COLUMNS = (
    WebhookDelivery.event_id,
    WebhookDelivery.webhook_id,
    WebhookDelivery.event_type,
    WebhookDelivery.resource,
    WebhookDelivery.resource_id,
    WebhookDelivery.status,
    WebhookDelivery.created_at,
    WebhookDelivery.updated_at,
    WebhookDelivery.last_attempt_at,
    WebhookDelivery.delivered_at,
    WebhookDelivery.failed_at,
    # The next try of a pending delivery is its job's (re)run time.
    case((WebhookDelivery.status == "pending", Job.run_at)).label("next_attempt_at"),
    WebhookDelivery.attempts,
    WebhookDelivery.body,
)


async def list_webhooks(db: AsyncSession, project_id: str, page: PageParams) -> Rows:
    query = select(*FIELDS.columns).where(Webhook.project_id == project_id)
    return (await db.execute(page.apply(query, Webhook.id))).all()


async def count_webhooks(db: AsyncSession, project_id: str) -> int:
    query = select(func.count()).where(Webhook.project_id == project_id)
    return int((await db.execute(query)).scalar_one())


async def get_webhook(db: AsyncSession, project_id: str, webhook_id: str) -> Webhook | None:
    query = select(Webhook).where(Webhook.id == webhook_id, Webhook.project_id == project_id)
    return (await db.execute(query)).scalar_one_or_none()


SUBSCRIBED = select(Webhook.id, Webhook.project_id, Webhook.events).where(
    Webhook.project_id.in_(bindparam("project_ids", expanding=True)), Webhook.active.is_(True)
)


async def subscribed(db: AsyncSession, project_ids: Iterable[str]) -> Rows:
    """The active webhooks of these projects: id, project and event types."""
    conn = await db.connection()  # every write with events asks: the Core path, cached
    return (await conn.execute(SUBSCRIBED, {"project_ids": list(project_ids)})).all()


# The deliveries of one event and their jobs, the webhooks found in the same statement
# (``dispatch._queue_one``): each matching webhook takes the next of the job ids given.
QUEUE_ONE = text(
    """
WITH matched AS (
    SELECT w.id AS webhook_id,
           -- more webhooks than ids (two creates racing past the limit): still unique
           COALESCE((CAST(:job_ids AS varchar[]))[row_number() OVER (ORDER BY w.id)],
                    md5(w.id || :event_id)) AS job_id
    FROM webhooks w
    WHERE w.project_id = :project_id AND w.active
      AND w.events @> CAST(:types AS jsonb)
      AND NOT (w.id = ANY(CAST(:skipped AS varchar[])))
), written AS (
    INSERT INTO webhook_deliveries (webhook_id, event_id, project_id, event_type, resource,
        resource_id, body, status, attempts, job_id, created_at, updated_at)
    SELECT webhook_id, :event_id, :project_id, :event_type, :resource, :resource_id, :body,
        'pending', CAST('[]' AS jsonb), job_id, :now, :now
    FROM matched
)
INSERT INTO jobs (id, name, payload, status, attempts, run_at, created_at, errors, key)
SELECT job_id, 'webhook.deliver',
    jsonb_build_object('webhookId', webhook_id, 'eventId', CAST(:event_id AS varchar)),
    'queued', 0, :now, :now, CAST('[]' AS jsonb), :key_prefix || webhook_id || :key_suffix
FROM matched
RETURNING id
"""
).bindparams(bindparam("now", type_=UTCDateTime()))


async def queue_one(
    db: AsyncSession,
    event: Event,
    *,
    body: str,
    skipped: list[str],
    key_prefix: str,
    key_suffix: str,
    job_ids: list[str],
    now: datetime,
) -> list[str]:
    """PostgreSQL: the deliveries of ``event`` to the active webhooks of its project that
    subscribe to its type (but ``skipped``), and their jobs; answers the jobs' ids."""
    conn = await db.connection()
    params = {
        "job_ids": job_ids,
        "project_id": event.project_id,
        "types": encoding.dumps([event.type]).decode(),
        "skipped": skipped,
        "event_id": event.id,
        "event_type": event.type,
        "resource": event.resource,
        "resource_id": event.resource_id,
        "body": body,
        "now": now,
        "key_prefix": key_prefix,
        "key_suffix": key_suffix,
    }
    return list((await conn.execute(QUEUE_ONE, params)).scalars())


def _one_of_each() -> Any:
    """A delivery and its job in one statement (PostgreSQL), built and compiled once."""
    delivery = {c.key: bindparam(f"d_{c.key}", type_=c.type) for c in WebhookDelivery.__table__.c}
    job = {c.key: bindparam(f"j_{c.key}", type_=c.type) for c in Job.__table__.c}
    written = insert(WebhookDelivery).values(delivery).cte("delivery")
    return insert(Job).values(job).add_cte(written)


ONE_OF_EACH = _one_of_each()


async def insert_deliveries(
    db: AsyncSession, deliveries: list[dict[str, Any]], jobs: list[dict[str, Any]]
) -> None:
    """The delivery rows and their jobs. A write's hot path: a single delivery (one event, one
    webhook) is one statement with its job on PostgreSQL, a round trip more than a write
    without webhooks; both statements are cached, never compiled per request."""
    conn = await db.connection()  # Core statements: none of the ORM's execution path
    if len(deliveries) == 1 and conn.dialect.name == "postgresql":
        params = {f"d_{k}": v for k, v in deliveries[0].items()}
        params.update({f"j_{k}": v for k, v in jobs[0].items()})
        await conn.execute(ONE_OF_EACH, params)
        return
    await conn.execute(insert(WebhookDelivery), deliveries)
    await conn.execute(insert(Job), jobs)


async def list_deliveries(
    db: AsyncSession, webhook_id: str, status: str | None, page: PageParams
) -> Rows:
    query = (
        select(*DELIVERY_COLUMNS)
        .outerjoin(Job, Job.id == WebhookDelivery.job_id)
        .where(WebhookDelivery.webhook_id == webhook_id)
    )
    if status is not None:
        query = query.where(WebhookDelivery.status == status)
    return (await db.execute(page.apply(query, WebhookDelivery.event_id))).all()


async def delivery_row(db: AsyncSession, webhook_id: str, event_id: str) -> Any:
    query = (
        select(*DELIVERY_COLUMNS)
        .outerjoin(Job, Job.id == WebhookDelivery.job_id)
        .where(WebhookDelivery.webhook_id == webhook_id, WebhookDelivery.event_id == event_id)
    )
    return (await db.execute(query)).first()


async def get_delivery(db: AsyncSession, webhook_id: str, event_id: str) -> WebhookDelivery | None:
    return await db.get(WebhookDelivery, (webhook_id, event_id))


async def for_sending(
    db: AsyncSession, webhook_id: str, event_id: str
) -> tuple[WebhookDelivery, Webhook] | None:
    """A delivery with its webhook, loaded to be sent."""
    query = (
        select(WebhookDelivery, Webhook)
        .join(Webhook, Webhook.id == WebhookDelivery.webhook_id)
        .where(WebhookDelivery.webhook_id == webhook_id, WebhookDelivery.event_id == event_id)
    )
    row = (await db.execute(query)).first()
    return None if row is None else (row[0], row[1])


async def admins(db: AsyncSession, workspace_id: str) -> list[str]:
    """The workspace's ADMIN and SUPER_ADMIN members: they administer every project."""
    query = select(Membership.user_id).where(
        Membership.workspace_id == workspace_id,
        Membership.role.in_((Role.ADMIN.value, Role.SUPER_ADMIN.value)),
        Membership.is_external.is_(False),
    )
    return list((await db.execute(query)).scalars())


async def webhook_by_id(db: AsyncSession, webhook_id: str) -> Webhook | None:
    """A webhook by id alone: for its delivery job, which the project's scope already named."""
    return await db.get(Webhook, webhook_id)


async def record_attempt(
    db: AsyncSession,
    webhook_id: str,
    event_id: str,
    attempts: list[dict[str, Any]],
    status: str,
    now: datetime,
) -> None:
    values: dict[str, Any] = {
        "attempts": attempts,
        "status": status,
        "last_attempt_at": now,
        "updated_at": now,
    }
    if status == "delivered":
        values["delivered_at"] = now
    await db.execute(_delivery_update(webhook_id, event_id).values(**values))


async def finish_delivery(
    db: AsyncSession, webhook_id: str, event_id: str, status: str, now: datetime
) -> None:
    """A delivery given up (or found with its webhook disabled)."""
    query = _delivery_update(webhook_id, event_id)
    await db.execute(query.values(status=status, failed_at=now, updated_at=now))


def _delivery_update(webhook_id: str, event_id: str) -> Any:
    return update(WebhookDelivery).where(
        WebhookDelivery.webhook_id == webhook_id, WebhookDelivery.event_id == event_id
    )


async def webhook_answered(db: AsyncSession, webhook_id: str, *, ok: bool, now: datetime) -> None:
    """A delivered attempt ends a failing streak; a failed one starts one, unless it runs."""
    failing = None if ok else func.coalesce(Webhook.failing_since, now)
    query = update(Webhook).where(Webhook.id == webhook_id).values(failing_since=failing)
    await db.execute(query.execution_options(synchronize_session=False))


async def purge_deliveries(db: AsyncSession, before: datetime) -> int:
    """Delete the deliveries finished (delivered or failed) before ``before``; answers how many."""
    finished = func.coalesce(WebhookDelivery.delivered_at, WebhookDelivery.failed_at)
    query = delete(WebhookDelivery).where(WebhookDelivery.status != "pending", finished < before)
    result = await db.execute(query.execution_options(synchronize_session=False))
    return int(result.rowcount)  # type: ignore[attr-defined]
