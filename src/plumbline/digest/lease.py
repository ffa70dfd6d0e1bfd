"""Leases of the daily tasks: which process runs a task now, and the last day it was run.

One row per daily task in ``scheduler_leases``. A scheduler takes a task's row with one
conditional statement (not run to completion on that day, and nobody's lease running), so of
several servers with ``PLUMBLINE_SCHEDULER=on`` exactly one runs it; the holder renews the lease
while the task runs, and a holder that dies lets its lease expire for another to take over."""

from __future__ import annotations

import os
import socket
from datetime import date, datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, Insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import SchedulerLease

LEASE = timedelta(minutes=5)  # how long a holder that stopped renewing keeps the task
RETRY = timedelta(minutes=15)  # after a failed run, nobody runs the task before this

# This process, as the holder column names it (host and pid, for the operator reading it).
HOLDER = f"{socket.gethostname()[:48]}:{os.getpid()}:{new_id()[:8]}"


async def _changed(statement: Any) -> bool:
    async with database.sessionmaker() as db, db.begin():
        result = cast(CursorResult[Any], await db.execute(statement))
        return result.rowcount == 1


def _row(name: str, now: datetime) -> Insert:
    """The task's row when it has none yet (nobody holds it, never run)."""
    dialect = database.engine.dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    values = {"name": name, "holder": None, "expires_at": None, "done_day": None, "updated_at": now}
    return cast(Insert, module.insert(SchedulerLease).values(**values).on_conflict_do_nothing())


async def take(name: str, day: date, holder: str = HOLDER) -> bool:
    """Take the lease on the daily task ``name`` to run it for ``day``: True when ``holder``
    now holds it; False when it was already run that day or another holder's lease runs."""
    now = clock.now()
    async with database.sessionmaker() as db, db.begin():
        await db.execute(_row(name, now))
    lease = SchedulerLease
    return await _changed(
        update(lease)
        .where(
            lease.name == name,
            or_(lease.done_day.is_(None), lease.done_day < day),
            or_(lease.expires_at.is_(None), lease.expires_at < now),
        )
        .values(holder=holder, expires_at=now + LEASE, updated_at=now)
    )


async def renew(name: str, holder: str = HOLDER) -> bool:
    """Extend the lease ``holder`` holds; False when it no longer holds it."""
    now = clock.now()
    lease = SchedulerLease
    return await _changed(
        update(lease)
        .where(lease.name == name, lease.holder == holder)
        .values(expires_at=now + LEASE, updated_at=now)
    )


async def release(name: str, day: date | None, holder: str = HOLDER) -> bool:
    """Give the lease up: the task was run for ``day``, or (None) it failed and waits
    ``RETRY`` before anyone runs it again."""
    now = clock.now()
    lease = SchedulerLease
    values: dict[str, Any] = {"holder": None, "updated_at": now}
    values |= {"done_day": day, "expires_at": None} if day else {"expires_at": now + RETRY}
    return await _changed(
        update(lease).where(lease.name == name, lease.holder == holder).values(**values)
    )


async def done(name: str, day: date) -> bool:
    """Whether the daily task ``name`` was run to completion for ``day`` (by any process)."""
    async with database.sessionmaker() as db:
        query = select(SchedulerLease.done_day).where(SchedulerLease.name == name)
        last = (await db.execute(query)).scalar_one_or_none()
    return last is not None and last >= day
