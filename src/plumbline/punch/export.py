"""The punch list as CSV (``records.export``: keyset batches, a session per batch)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.clock import iso
from plumbline.kit.export import csv_cell
from plumbline.models import PunchItem
from plumbline.punch import repository as repo
from plumbline.punch.schemas import PunchFilters
from plumbline.records import export
from plumbline.records.fields import day
from plumbline.records.visibility import Visibility

HEADER = (
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


def csv_lines(vis: Visibility, filters: PunchFilters) -> AsyncIterator[bytes]:
    async def batch(
        db: AsyncSession, before_id: str | None, size: int
    ) -> tuple[Sequence[Any], Iterable[Any]]:
        query = repo.filtered(vis, filters)
        if before_id is not None:
            query = query.where(PunchItem.id < before_id)
        rows = await repo.rows(db, query.order_by(PunchItem.id.desc()).limit(size))
        names = await repo.assignee_names_for(db, [row.id for row in rows])
        lines = [
            (
                row.punch_number,
                csv_cell(row.title),
                row.status,
                row.priority,
                csv_cell(row.location),
                csv_cell(row.trade),
                csv_cell("; ".join(names[row.id])),
                day(row.due_date) or "",
                csv_cell(row.notes),
                iso(row.closed_at) or "",
                iso(row.created_at),
                iso(row.updated_at),
                row.id,
            )
            for row in rows
        ]
        return rows, lines

    return export.stream(HEADER, batch)
