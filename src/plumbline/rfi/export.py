"""CSV export of a project's RFIs (``records.export``: keyset batches, a session per batch)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.clock import iso
from plumbline.kit.export import csv_cell
from plumbline.records import export
from plumbline.records.fields import day
from plumbline.records.visibility import Visibility
from plumbline.rfi.repository import ASSIGNEES, RfiFilters, rfi_repository
from plumbline.rfi.sanitize import to_text
from plumbline.rfi.workflow import ball_in_court

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


def rfi_csv(vis: Visibility, filters: RfiFilters) -> AsyncIterator[bytes]:
    async def batch(
        db: AsyncSession, before_id: str | None, size: int
    ) -> tuple[Sequence[Any], Iterable[Any]]:
        rows = await rfi_repository.export_batch(db, vis, filters, before_id, size)
        assignees = await ASSIGNEES.of(db, [row.id for row in rows])
        people = {p for row in rows for p in (row.manager_id, row.created_by) if p}
        people.update(user_id for ids in assignees.values() for user_id in ids)
        names = await rfi_repository.user_names(db, sorted(people))

        def name(user_id: str | None) -> str:
            return names.get(user_id, user_id) if user_id else ""

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
                    day(row.due_date) or "",
                    csv_cell(name(row.manager_id)),
                    csv_cell("; ".join(name(u) for u in responders)),
                    csv_cell("; ".join(name(u) for u in ball)),
                    csv_cell(row.question),
                    csv_cell(to_text(answer)),
                    iso(row.answered_at) or "",
                    iso(row.closed_at) or "",
                    csv_cell(name(row.created_by)),
                    iso(row.created_at),
                    iso(row.updated_at),
                    row.id,
                )
            )
        return rows, lines

    return export.stream(HEADER, batch)
