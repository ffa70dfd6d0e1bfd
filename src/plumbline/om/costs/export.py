"""The project's cost lines as CSV (``/projects/{projectId}/om/costs/export.csv``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.kit.export import csv_cell
from plumbline.om.costs import repository as repo
from plumbline.om.costs.repository import FIELDS
from plumbline.om.costs.schemas import CostFilters
from plumbline.om.costs.service import view
from plumbline.records.export import Batch

COST_HEADER = (
    "Date",
    "Work order",
    "Asset",
    "Kind",
    "Category",
    "Description",
    "Part",
    "Quantity",
    "Unit cost",
    "Person",
    "Minutes",
    "Hourly rate",
    "Amount",
)


def export(ctx: ProjectContext, filters: CostFilters) -> Batch:
    project_id = ctx.project.id

    async def batch(db: AsyncSession, before: str | None, size: int) -> Any:
        rows = await repo.export_rows(db, project_id, filters, before, size)
        lines = []
        for row in rows:
            cost = view(FIELDS.row(row))
            number, asset_id = row[-2:]
            values = (
                cost["incurredAt"],
                number,
                asset_id,
                cost["kind"],
                cost["category"],
                cost["description"],
                cost["partId"],
                cost["quantity"],
                cost["unitCost"],
                cost["userId"],
                cost["minutes"],
                cost["hourlyRate"],
                cost["amount"],
            )
            lines.append([csv_cell(value) for value in values])
        return rows, lines

    return batch
