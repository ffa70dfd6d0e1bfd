"""The punch list as CSV, read in keyset batches by its own session while the response streams
(the request's session is closed by then), so no transaction or SQLite write lock is held while a
slow client reads."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from datetime import date, datetime
from typing import Any

from sqlalchemy import Row

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.export import csv_cell
from plumbline.punch import repository as repo
from plumbline.punch.schemas import PunchFilters

EXPORT_BATCH = 500
CSV_FIELDS = (
    "punchNumber",
    "title",
    "status",
    "priority",
    "location",
    "trade",
    "assignees",
    "dueDate",
    "notes",
    "closedAt",
    "createdAt",
    "updatedAt",
    "id",
)


def _day(value: date | None) -> str:
    return value.isoformat() if value else ""


async def csv_lines(vis: repo.Visibility, filters: PunchFilters) -> AsyncIterator[str]:
    """The CSV text in chunks: the header, then one chunk per keyset batch."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\r\n")
    writer.writeheader()
    yield _drain(buffer)
    before_id: str | None = None
    async with database.sessionmaker() as session:
        while True:
            batch = await repo.export_batch(session, vis, filters, before_id, EXPORT_BATCH)
            if not batch:
                break
            names = await repo.assignee_names_for(session, [row.id for row in batch])
            # End the read transaction between batches: no long-held snapshot or lock.
            await session.rollback()
            for row in batch:
                writer.writerow(_csv_row(row, names[row.id]))
            yield _drain(buffer)
            if len(batch) < EXPORT_BATCH:
                break
            before_id = batch[-1].id


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def _iso(value: datetime | None) -> str:
    return clock.iso(value) or ""


def _csv_row(row: Row[Any], assignees: list[str]) -> dict[str, Any]:
    return {
        "punchNumber": row.punch_number,
        "title": csv_cell(row.title),
        "status": row.status,
        "priority": row.priority,
        "location": csv_cell(row.location),
        "trade": csv_cell(row.trade),
        "assignees": csv_cell("; ".join(assignees)),
        "dueDate": _day(row.due_date),
        "notes": csv_cell(row.notes),
        "closedAt": _iso(row.closed_at),
        "createdAt": _iso(row.created_at),
        "updatedAt": _iso(row.updated_at),
        "id": row.id,
    }
