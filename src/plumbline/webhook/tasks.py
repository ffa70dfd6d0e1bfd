"""The ``webhook.deliver`` job: one attempt per run, retried on the Standard Webhooks schedule
for 3 days; a webhook failing all that time is disabled and the project's admins told."""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as
from plumbline.config import retry_seconds, settings
from plumbline.jobs import AttemptFailed, task, unit_of_work
from plumbline.jobs.registry import Payload
from plumbline.kit import clock
from plumbline.kit.mail import Mail
from plumbline.mail.tasks import queue as queue_mail
from plumbline.notification import repository as contacts
from plumbline.notification.service import notification
from plumbline.webhook import delivery, repository, signing
from plumbline.webhook.dispatch import DELIVER, DELIVERED, FAILED, PENDING

# Seconds between attempts as the Standard Webhooks specification recommends; the last wait
# repeats (every 10 h) until the window closes.
SCHEDULE = (5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0)
WINDOW = timedelta(days=3)
JITTER = 0.1  # each wait is drawn within 10 % either side, so retries do not come in waves
# Held by one runner at a time: longer than an attempt can take (a 10 s request, the lookups
# and a write that may wait for SQLite's lock).
LEASE = timedelta(minutes=2)
_random = random.SystemRandom()


def retry(attempts: int, age: timedelta) -> timedelta | None:
    """The wait after the ``attempts``-th failure: the last attempt comes 3 days after the
    delivery was queued, then None (``PLUMBLINE_WEBHOOK_RETRY_SECONDS`` replaces the waits,
    not the window)."""
    if age >= WINDOW:
        return None
    waits = retry_seconds(settings.webhook_retry_seconds) or SCHEDULE
    wait = timedelta(seconds=waits[min(attempts, len(waits)) - 1])
    return min(wait * _random.uniform(1 - JITTER, 1 + JITTER), WINDOW - age)


async def given_up(db: AsyncSession, payload: Payload, error: str) -> None:
    """The delivery failed for good; its webhook, failing since 3 days or more, is disabled."""
    now = clock.now()
    webhook_id = payload["webhookId"]
    await repository.finish_delivery(db, webhook_id, payload["eventId"], FAILED, now)
    webhook = await repository.webhook_by_id(db, webhook_id)
    if webhook is None or not webhook.active or webhook.failing_since is None:
        return
    if now - webhook.failing_since < WINDOW:
        return
    reason = f"Every delivery failed for 3 days (last error: {error})"[:500]
    webhook.active, webhook.disabled_reason, webhook.updated_at = False, reason, now
    await audit_as(
        db,
        "system",
        ("webhook", webhook.id),
        "webhook.disabled",
        {"active": [True, False]},
        workspace_id=webhook.workspace_id,
        project_id=webhook.project_id,
    )
    admins = await repository.admins(db, webhook.workspace_id)
    title = f"Webhook disabled after failing for 3 days: {webhook.url}"[:500]
    href = f"/projects/{webhook.project_id}/webhooks/{webhook.id}"
    await notification.notify(
        db,
        admins,
        kind="WEBHOOK_DISABLED",
        title=title,
        body=reason,
        href=href,
        workspace_id=webhook.workspace_id,
        project_id=webhook.project_id,
    )
    link = f"{settings.public_url.rstrip('/')}/api/v1{href}"
    for person in await contacts.contacts(db, admins):
        text = (
            f"Hello {person.name},\n\nThe webhook {webhook.url} has failed every delivery for "
            f"3 days, so Plumbline disabled it.\n\n{reason}\n\nOnce the receiver works again, "
            f'enable it (PATCH {link} with {{"active": true}}) and redeliver what it missed.\n'
        )
        mail = Mail(to=[person.email], subject="A webhook was disabled", text=text)
        queue_mail(unit_of_work(db), mail)


@task("webhooks.purge_deliveries")
async def purge_deliveries(db: AsyncSession, payload: Payload) -> int:
    """Delete the deliveries delivered or given up longer ago than the events are kept
    (``PLUMBLINE_EVENT_RETENTION_DAYS``; queued by ``POST /internal/maintenance``)."""
    cutoff = clock.now() - timedelta(days=settings.event_retention_days)
    return await repository.purge_deliveries(db, cutoff)


@task(DELIVER, retry=retry, given_up=given_up, lease=LEASE)
async def deliver(db: AsyncSession, payload: Payload) -> None:
    """One attempt of one delivery. Every attempt is logged on the delivery; a failed one
    raises ``AttemptFailed`` (the log stays, the job is retried on ``retry``)."""
    loaded = await repository.for_sending(db, payload["webhookId"], payload["eventId"])
    if loaded is None:
        return  # the webhook was deleted
    sending, webhook = loaded
    if sending.status != PENDING:
        return  # already delivered or given up
    now = clock.now()
    if not webhook.active:
        await repository.finish_delivery(db, webhook.id, sending.event_id, FAILED, now)
        return
    try:
        keys = signing.signing_secrets(
            webhook.secret, webhook.previous_secret, webhook.previous_secret_expires_at, now
        )
    except signing.Unreadable as exc:
        attempt = delivery.Attempt(False, None, 0, None, str(exc))
    else:
        headers = signing.headers(sending.event_id, sending.body, keys, now)
        url, body = webhook.url, sending.body
        # No transaction (SQLite's write lock, a PostgreSQL connection) is held while waiting
        # on the receiver: the job's lease keeps other runners off it meanwhile.
        await unit_of_work(db).commit_reads()
        attempt = await delivery.send(url, headers, body)
    attempts = [*sending.attempts, attempt.log(clock.iso(now))]
    status = DELIVERED if attempt.ok else PENDING
    await repository.record_attempt(db, webhook.id, sending.event_id, attempts, status, now)
    if attempt.ok != (webhook.failing_since is None):  # a failing streak starts or ends
        await repository.webhook_answered(db, webhook.id, ok=attempt.ok, now=now)
    if not attempt.ok:
        raise AttemptFailed(attempt.error or "failed")
