"""Queries of the job table."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, func, or_, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from plumbline.models import Job

QUEUED, DONE, FAILED = "queued", "done", "failed"

_earlier = aliased(Job)
# A job of a key waits while an earlier job of that key is still queued (``enqueue(key=)``).
_waiting = (
    select(_earlier.id)
    .where(
        _earlier.key == Job.key,
        _earlier.status == QUEUED,
        tuple_(_earlier.created_at, _earlier.id) < tuple_(Job.created_at, Job.id),
    )
    .exists()
)


async def claim(
    db: AsyncSession, now: datetime, ids: Sequence[str] | None = None
) -> Row[Any] | None:
    """The next due job, locked until the transaction ends. Other runners skip the locked row
    (PostgreSQL); SQLite's ``BEGIN IMMEDIATE`` already lets one writer in at a time. A job
    waiting for an earlier one of its key is not due."""
    query = select(Job.id, Job.name, Job.payload, Job.attempts, Job.errors, Job.created_at).where(
        Job.status == QUEUED, Job.run_at <= now, or_(Job.key.is_(None), ~_waiting)
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
