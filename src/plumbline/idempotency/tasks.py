"""Housekeeping of the idempotency keys."""

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.idempotency import repository
from plumbline.jobs import task
from plumbline.jobs.registry import Payload
from plumbline.kit import clock


@task("idempotency.purge_expired")
async def purge_expired(db: AsyncSession, payload: Payload) -> int:
    """Delete the keys past their 24 hours (queued by ``POST /internal/maintenance``; deleting
    twice is harmless)."""
    return await repository.delete_expired(db, clock.now())
