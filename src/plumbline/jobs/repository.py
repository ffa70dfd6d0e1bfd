"""Queries of the job table."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import Job

QUEUED, DONE, FAILED = "queued", "done", "failed"


async def claim(
    db: AsyncSession, now: datetime, ids: Sequence[str] | None = None
) -> Row[Any] | None:
    """The next due job, locked until the transaction ends. Other runners skip the locked row
    (PostgreSQL); SQLite's ``BEGIN IMMEDIATE`` already lets one writer in at a time."""
    query = select(Job.id, Job.name, Job.payload, Job.attempts, Job.errors).where(
        Job.status == QUEUED, Job.run_at <= now
    )
    if ids is not None:
        query = query.where(Job.id.in_(ids))
    query = query.order_by(Job.run_at, Job.id).limit(1).with_for_update(skip_locked=True)
    return (await db.execute(query)).first()


async def record(db: AsyncSession, job_id: str, **values: Any) -> None:
    """Write a run's outcome on the job's row."""
    await db.execute(update(Job).where(Job.id == job_id).values(**values))


async def count_due(db: AsyncSession, now: datetime) -> int:
    """How many queued jobs are due."""
    query = select(func.count()).where(Job.status == QUEUED, Job.run_at <= now)
    return int((await db.execute(query)).scalar_one())


async def delete_finished(db: AsyncSession, before: datetime) -> int:
    """Delete jobs done or given up before ``before``; answers how many."""
    result = await db.execute(
        delete(Job).where(Job.status.in_((DONE, FAILED)), Job.finished_at < before)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]
