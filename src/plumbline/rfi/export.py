"""CSV export of a project's RFIs: streamed in keyset batches from a session of its own."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Sequence
from typing import Any

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.export import csv_cell
from plumbline.rfi.repository import RfiFilters, Viewer, rfi_repository
from plumbline.rfi.sanitize import to_text
from plumbline.rfi.workflow import ball_in_court

BATCH = 500
HEADER = (
    "RFI #",
    "Title",
    "Status",
    "Priority",
    "Due date",
    "Manager",
    "Responders",
    "Ball in court",
    "Question",
    "Official response",
    "Answered at",
    "Closed at",
    "Created by",
    "Created at",
    "Updated at",
    "Id",
)


def _name(names: dict[str, str], user_id: str | None) -> str:
    return names.get(user_id, user_id) if user_id else ""


def _csv(rows: Sequence[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue().encode()


async def rfi_csv(viewer: Viewer, filters: RfiFilters) -> AsyncIterator[bytes]:
    """Runs after the request's unit of work has closed, so it opens its own session; each
    batch's transaction ends before its bytes are sent (SQLite writers are never held up)."""
    yield _csv([HEADER])
    before: str | None = None
    async with database.sessionmaker() as db:
        while True:
            rows = await rfi_repository.export_batch(db, viewer, filters, before, BATCH)
            if not rows:
                break
            assignees = await rfi_repository.assignees_of(db, [row.id for row in rows])
            people = {p for row in rows for p in (row.manager_id, row.created_by) if p}
            people.update(user_id for ids in assignees.values() for user_id in ids)
            names = await rfi_repository.user_names(db, sorted(people))
            await db.rollback()

            lines = []
            for row in rows:
                responders = assignees[row.id]
                ball = ball_in_court(row.status, row.manager_id, responders)
                answer = (row.official_response or {}).get("body")
                lines.append(
                    (
                        row.rfi_number,
                        csv_cell(row.title),
                        row.status,
                        row.priority,
                        row.due_date.isoformat() if row.due_date else "",
                        csv_cell(_name(names, row.manager_id)),
                        csv_cell("; ".join(_name(names, u) for u in responders)),
                        csv_cell("; ".join(_name(names, u) for u in ball)),
                        csv_cell(row.question),
                        csv_cell(to_text(answer)),
                        clock.iso(row.answered_at) or "",
                        clock.iso(row.closed_at) or "",
                        csv_cell(_name(names, row.created_by)),
                        clock.iso(row.created_at),
                        clock.iso(row.updated_at),
                        row.id,
                    )
                )
            yield _csv(lines)
            if len(rows) < BATCH:
                break
            before = rows[-1].id
