"""Housekeeping of the job table itself."""

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.config import settings
from plumbline.jobs import repository
from plumbline.jobs.registry import Payload, task
from plumbline.kit import clock


@task("jobs.purge_finished")
async def purge_finished(db: AsyncSession, payload: Payload) -> int:
    """Delete the jobs done or given up more than ``PLUMBLINE_JOBS_RETENTION_DAYS`` ago
    (queued by ``POST /internal/maintenance``; deleting twice is harmless)."""
    cutoff = clock.now() - timedelta(days=settings.jobs_retention_days)
    return await repository.delete_finished(db, cutoff)
