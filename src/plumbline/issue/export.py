"""The streamed CSV export: its own session, keyset batches, nothing held in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

import orjson
from sqlalchemy import ColumnElement
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.issue import repository as repo
from plumbline.kit.clock import iso
from plumbline.kit.export import csv_cell
from plumbline.records import export
from plumbline.records.fields import day

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
    # A work order's cost totals (the `costs` of the API); empty for a construction issue.
    "partsCost",
    "labourCost",
    "otherCost",
    "totalCost",
)
COSTS = ("parts", "labour", "other", "total")


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
        day(row.due_date) or "",
        csv_cell(row.location),
        csv_cell(row.description),
        row.created_by or "",
        csv_cell(row.author_name),
        iso(row.created_at),
        iso(row.updated_at),
        iso(row.status_changed_at) or "",
        iso(row.resolved_at) or "",
        iso(row.closed_at) or "",
        *_costs(row.costs),
    )


def _costs(text: str | None) -> list[str]:
    """The totals' cells, from the costs column as selected (its JSON text)."""
    totals = (orjson.loads(text) if text else None) or {}
    return [totals.get(name, "") for name in COSTS]


def stream_csv(conditions: list[ColumnElement[bool]]) -> AsyncIterator[bytes]:
    async def batch(
        db: AsyncSession, before_id: str | None, size: int
    ) -> tuple[Sequence[Any], Iterable[Any]]:
        rows = await repo.export_batch(db, conditions, before_id, size)
        return rows, [_line(row) for row in rows]

    return export.stream(HEADER, batch)
