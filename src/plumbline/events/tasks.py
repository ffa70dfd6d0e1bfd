"""Housekeeping of the event log."""

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.config import settings
from plumbline.events import repository
from plumbline.jobs.registry import Payload, task
from plumbline.kit import clock


@task("events.purge_expired")
async def purge_expired(db: AsyncSession, payload: Payload) -> int:
    """Delete the events older than ``PLUMBLINE_EVENT_RETENTION_DAYS`` (queued by ``POST
    /internal/maintenance``); a change-feed cursor from before them then answers 410."""
    cutoff = clock.now() - timedelta(days=settings.event_retention_days)
    return await repository.purge(db, cutoff)
