"""The streamed CSV export: its own session, keyset batches, nothing held in memory."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Sequence
from typing import Any

from sqlalchemy import ColumnElement

from plumbline.db import database
from plumbline.issue import repository as repo
from plumbline.issue.serialize import iso
from plumbline.kit.export import csv_cell

BATCH = 500
HEADER = (
    "number",
    "id",
    "title",
    "status",
    "priority",
    "issueKind",
    "workOrderType",
    "assigneeId",
    "assigneeName",
    "dueDate",
    "location",
    "description",
    "createdBy",
    "createdByName",
    "createdAt",
    "updatedAt",
    "statusChangedAt",
    "resolvedAt",
    "closedAt",
)


def _line(row: Any) -> Sequence[Any]:
    return (
        row.number,
        row.id,
        csv_cell(row.title),
        row.status,
        row.priority,
        row.issue_kind,
        row.work_order_type or "",
        row.assignee_id or "",
        csv_cell(row.assignee_name),
        row.due_date.isoformat() if row.due_date else "",
        csv_cell(row.location),
        csv_cell(row.description),
        row.created_by or "",
        csv_cell(row.author_name),
        iso(row.created_at),
        iso(row.updated_at),
        iso(row.status_changed_at) or "",
        iso(row.resolved_at) or "",
        iso(row.closed_at) or "",
    )


async def stream_csv(conditions: list[ColumnElement[bool]]) -> AsyncIterator[bytes]:
    """Runs after the request's unit of work has closed, so it opens its own sessions: one short
    session per batch, so no connection, transaction or SQLite write lock is held while a slow
    client reads."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(HEADER)
    after_id: str | None = None
    while True:
        async with database.sessionmaker() as db:
            rows = await repo.export_batch(db, conditions, after_id, BATCH)
        writer.writerows(_line(row) for row in rows)
        yield buffer.getvalue().encode()
        buffer.seek(0)
        buffer.truncate()
        if len(rows) < BATCH:
            return
        after_id = rows[-1].id
