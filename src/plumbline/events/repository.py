"""Queries of the event log and its streams."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import cast

from sqlalchemy import Table, delete, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Rows
from plumbline.events.hooks import Event
from plumbline.models import EventLog, EventStream

EVENTS = cast("Table", EventLog.__table__)
INSERT_EVENT = insert(EVENTS)
# One statement on both SQLite and PostgreSQL; the stream's row stays locked until the commit.
_ALLOCATE = text(
    "INSERT INTO event_streams (id, last_seq, purged_seq) VALUES (:stream, :count, 0) "
    "ON CONFLICT (id) DO UPDATE SET last_seq = event_streams.last_seq + :count "
    "RETURNING last_seq"
)


async def allocate(db: AsyncSession, stream: str, count: int) -> int:
    """Reserve ``count`` numbers in ``stream``; answers the last one."""
    result = await db.execute(_ALLOCATE, {"stream": stream, "count": count})
    return int(result.scalar_one())


async def write(db: AsyncSession, events: Sequence[Event]) -> None:
    rows = [
        {
            "id": e.id,
            "stream": e.stream,
            "seq": e.seq,
            "workspace_id": e.workspace_id,
            "project_id": e.project_id,
            "type": e.type,
            "resource": e.resource,
            "resource_id": e.resource_id,
            "actor": e.actor,
            "data": e.data,
            "created_at": e.created_at,
        }
        for e in events
    ]
    await (await db.connection()).execute(INSERT_EVENT, rows)


async def stream_state(db: AsyncSession, stream: str) -> tuple[int, int]:
    """The stream's last and last purged numbers (0, 0 before its first event)."""
    query = select(EventStream.last_seq, EventStream.purged_seq).where(EventStream.id == stream)
    row = (await db.execute(query)).first()
    return (int(row[0]), int(row[1])) if row is not None else (0, 0)


async def page(
    db: AsyncSession,
    stream: str,
    after: int,
    through: int,
    limit: int,
    resources: Sequence[str],
) -> Rows:
    """Up to ``limit`` events of ``stream`` numbered after ``after`` and up to ``through``
    (the stream's last number when the caller read it: all committed), in order."""
    query = select(
        EventLog.seq,
        EventLog.type,
        EventLog.resource,
        EventLog.resource_id,
        EventLog.data,
        EventLog.created_at,
    ).where(
        EventLog.stream == stream,
        EventLog.seq > after,
        EventLog.seq <= through,
        EventLog.resource.in_(resources),
    )
    return (await db.execute(query.order_by(EventLog.seq).limit(limit))).all()


async def purge(db: AsyncSession, before: datetime) -> int:
    """Delete each stream's events up to its last one written before ``before`` (numbers, not
    times, bound it: a stream's times need not follow its commits), and remember where each
    stream's kept history now starts. Answers how many events went."""
    old = select(EventLog.stream).where(EventLog.created_at < before).distinct()
    last_old = (
        select(func.max(EventLog.seq))
        .where(EventLog.stream == EventStream.id, EventLog.created_at < before)
        .scalar_subquery()
    )
    await db.execute(
        update(EventStream)
        .where(EventStream.id.in_(old))
        .values(purged_seq=last_old)  # above the last purge: its events are gone
    )
    purged = select(EventStream.purged_seq).where(EventStream.id == EventLog.stream)
    result = await db.execute(
        delete(EventLog).where(EventLog.seq <= purged.scalar_subquery()),
        execution_options={"synchronize_session": False},
    )
    return int(result.rowcount)  # type: ignore[attr-defined]
