"""Stock rules: a project's stock locations and the ledger through which alone stock moves
(receipts, transfers, adjustments, consumptions, returns); the parts are in ``catalogue.py``.

Access (om/auth.py): members read; MANAGER+ sets parts and locations up, receives stock outside
a purchase order and adjusts it; whoever works on work orders transfers and consumes."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.authz import repository as authz_repo
from plumbline.authz.project import ProjectContext
from plumbline.errors import InvalidField
from plumbline.events.readers import reader
from plumbline.kit import clock
from plumbline.kit.export import csv_cell
from plumbline.kit.ids import new_id
from plumbline.kit.money import number_text
from plumbline.kit.pagination import PageParams
from plumbline.models import Part, StockLocation, StockMove
from plumbline.notification.service import notification
from plumbline.om.parts import repository as repo
from plumbline.om.parts.errors import (
    InsufficientStock,
    LocationNameTaken,
    LocationNotFound,
)
from plumbline.om.parts.repository import LOCATION_FIELDS, MOVE_FIELDS
from plumbline.om.parts.schemas import (
    AdjustmentCreate,
    LevelFilters,
    LocationCreate,
    MoveFilters,
    ReceiptCreate,
    TransferCreate,
)
from plumbline.records import add_record, references
from plumbline.records.export import Batch
from plumbline.records.references import Kind
from plumbline.records.repository import rows_by_id

PART = Kind("part", Part, "workspace")
LOCATION = Kind("stock location", StockLocation)
MOVE_HEADER = (
    "Date",
    "Kind",
    "Part",
    "SKU",
    "Location",
    "Quantity",
    "Balance after",
    "Unit cost",
    "Reason",
    "Work order",
    "Purchase order",
)


def move_view(values: dict[str, Any]) -> dict[str, Any]:
    for name in ("quantity", "balanceAfter", "unitCost"):
        if values[name] is not None:
            values[name] = number_text(Decimal(values[name]))
    return values


def _level(row: Sequence[Any]) -> dict[str, Any]:
    level_id, part_id, location_id, on_hand, name, sku, unit, minimum, reorder, at = row
    return {
        "id": level_id,
        "partId": part_id,
        "locationId": location_id,
        "onHand": number_text(Decimal(on_hand)),
        "partName": name,
        "sku": sku,
        "unit": unit,
        "minQuantity": number_text(Decimal(minimum)),
        "reorderQuantity": number_text(Decimal(reorder)),
        "belowMinimum": Decimal(on_hand) < Decimal(minimum),
        "updatedAt": clock.iso(at),
    }


@reader("stock_location")
async def locations_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row.id: LOCATION_FIELDS.row(row) for row in await rows_by_id(db, LOCATION_FIELDS, ids)}


@reader("stock_move")
async def moves_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    rows = await rows_by_id(db, MOVE_FIELDS, ids)
    return {row.id: move_view(MOVE_FIELDS.row(row)) for row in rows}


def counted(part: Part, quantity: Decimal, field: str, *, zero: bool = False) -> Decimal:
    """``quantity`` of ``part``: above zero (or zero when ``zero``), whole when the part is
    counted in units; else 400 naming ``field``."""
    if quantity < 0 or (quantity == 0 and not zero):
        raise InvalidField(field, "must be greater than zero")
    if part.whole_units and quantity != quantity.to_integral_value():
        raise InvalidField(field, f"{part.name} is counted in whole units")
    return quantity


class StockService:
    async def list_locations(
        self, db: AsyncSession, ctx: ProjectContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_locations(db, ctx.project.id, page))
        return [LOCATION_FIELDS.row(row) for row in rows], headers

    async def create_location(
        self, db: AsyncSession, ctx: ProjectContext, body: LocationCreate
    ) -> dict[str, Any]:
        if await repo.location_name_taken(db, ctx.project.id, body.name):
            raise LocationNameTaken()
        location = await add_record(db, ctx, StockLocation, name=body.name)
        await audit_change(
            db,
            ctx,
            ("stock_location", location.id),
            "stock_location.created",
            {"name": [None, location.name]},
        )
        return LOCATION_FIELDS.read(LOCATION_FIELDS.of(location))

    async def location(
        self, db: AsyncSession, ctx: ProjectContext, location_id: str, field: str | None = None
    ) -> StockLocation:
        """A live location of the project: 404, or 400 naming ``field`` when a body named it."""
        location = await repo.get_location(db, ctx.project.id, location_id)
        if location is None:
            raise references.refused(LOCATION, field) if field else LocationNotFound()
        return location

    async def part(self, db: AsyncSession, ctx: ProjectContext, part_id: str, field: str) -> Part:
        """A live part of the workspace named by a body's ``field`` (400 otherwise)."""
        part = await repo.get_part(db, ctx.workspace.id, part_id)
        if part is None:
            raise references.refused(PART, field)
        return part

    async def list_levels(
        self, db: AsyncSession, ctx: ProjectContext, filters: LevelFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_levels(db, ctx.project.id, filters, page))
        return [_level(row) for row in rows], headers

    async def list_moves(
        self, db: AsyncSession, ctx: ProjectContext, filters: MoveFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_moves(db, ctx.project.id, filters, page))
        return [move_view(MOVE_FIELDS.row(row)) for row in rows], headers

    def export_moves(self, ctx: ProjectContext, filters: MoveFilters) -> Batch:
        project_id = ctx.project.id

        async def batch(db: AsyncSession, before: str | None, size: int) -> Any:
            rows = await repo.export_moves(db, project_id, filters, before, size)
            lines = []
            for row in rows:
                move = move_view(MOVE_FIELDS.row(row))
                name, sku, location = row[-3:]
                lines.append(
                    [
                        csv_cell(value)
                        for value in (
                            move["createdAt"],
                            move["kind"],
                            name,
                            sku,
                            location,
                            # numbers, not text: a negative quantity is no formula
                            Decimal(move["quantity"]),
                            Decimal(move["balanceAfter"]),
                            move["unitCost"],
                            move["reason"],
                            move["workOrderId"],
                            move["purchaseOrderId"],
                        )
                    ]
                )
            return rows, lines

        return batch

    async def move(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        part: Part,
        location_id: str,
        delta: Decimal,
        kind: str,
        *,
        field: str = "quantity",
        reason: str | None = None,
        unit_cost: Decimal | None = None,
        work_order_id: str | None = None,
        cost_id: str | None = None,
        purchase_order_id: str | None = None,
    ) -> dict[str, Any]:
        """One ledger entry and its level change together; a decrease the stock does not cover
        is 409 naming the part and what is available, and writes nothing."""
        now = clock.now()
        if delta >= 0:
            await repo.ensure_level(db, ctx.project.id, ctx.workspace.id, part.id, location_id, now)
        changed = await repo.change_level(db, part.id, location_id, delta, now)
        if changed is None:
            available = await repo.available(db, part.id, location_id)
            raise InsufficientStock(part.id, part.name, available, field)
        on_hand, _ = changed
        move_id = new_id()
        values: dict[str, Any] = {
            "id": move_id,
            "project_id": ctx.project.id,
            "workspace_id": ctx.workspace.id,
            "part_id": part.id,
            "location_id": location_id,
            "kind": kind,
            "quantity": delta,
            "balance_after": on_hand,
            "unit_cost": unit_cost,
            "reason": reason,
            "work_order_id": work_order_id,
            "cost_id": cost_id,
            "purchase_order_id": purchase_order_id,
            "created_by": ctx.user_id,
            "created_at": now,
        }
        await db.execute(insert(StockMove).values(values))
        await audit_change(
            db,
            ctx,
            ("stock_move", move_id),
            "stock_move.created",
            {
                "kind": [None, kind],
                "partId": [None, part.id],
                "locationId": [None, location_id],
                "quantity": [None, number_text(delta)],
            },
        )
        await self._watch_minimum(db, ctx, part, location_id, on_hand)
        return move_view(MOVE_FIELDS.read(values))

    async def _watch_minimum(
        self, db: AsyncSession, ctx: ProjectContext, part: Part, location_id: str, on_hand: Decimal
    ) -> None:
        """Below the part's minimum: the project's managers told once per dip (the daily
        maintenance digest lists it while it lasts)."""
        if on_hand >= part.min_quantity:
            await repo.mark_low(db, part.id, location_id, None)
            return
        if not await repo.mark_low(db, part.id, location_id, clock.now()):
            return
        managers = await authz_repo.project_managers(db, ctx.workspace.id, ctx.project.id)
        await notification.notify(
            db,
            managers,
            kind="LOW_STOCK",
            title=f"{part.name} is below its minimum: {number_text(on_hand)} {part.unit} left",
            href=f"/projects/{ctx.project.id}/om/stock?locationId={location_id}",
            workspace_id=ctx.workspace.id,
            project_id=ctx.project.id,
            actor_id=ctx.user_id,
        )

    async def receive(
        self, db: AsyncSession, ctx: ProjectContext, body: ReceiptCreate
    ) -> dict[str, Any]:
        part = await self.part(db, ctx, body.part_id, "partId")
        await self.location(db, ctx, body.location_id, "locationId")
        quantity = counted(part, body.quantity, "quantity")
        return await self.move(
            db,
            ctx,
            part,
            body.location_id,
            quantity,
            "RECEIPT",
            reason=body.reason,
            unit_cost=body.unit_cost if body.unit_cost is not None else part.unit_cost,
        )

    async def transfer(
        self, db: AsyncSession, ctx: ProjectContext, body: TransferCreate
    ) -> list[dict[str, Any]]:
        """Two ledger entries: out of one location (409 when it has too little), into the other."""
        part = await self.part(db, ctx, body.part_id, "partId")
        await self.location(db, ctx, body.from_location_id, "fromLocationId")
        await self.location(db, ctx, body.to_location_id, "toLocationId")
        if body.from_location_id == body.to_location_id:
            raise InvalidField("toLocationId", "must differ from fromLocationId")
        quantity = counted(part, body.quantity, "quantity")
        out = await self.move(db, ctx, part, body.from_location_id, -quantity, "TRANSFER_OUT")
        into = await self.move(db, ctx, part, body.to_location_id, quantity, "TRANSFER_IN")
        return [out, into]

    async def adjust(
        self, db: AsyncSession, ctx: ProjectContext, body: AdjustmentCreate
    ) -> dict[str, Any]:
        """A count: the ledger records the difference between ``onHand`` and the ledger's sum
        (400 when there is none)."""
        part = await self.part(db, ctx, body.part_id, "partId")
        await self.location(db, ctx, body.location_id, "locationId")
        target = counted(part, body.on_hand, "onHand", zero=True)
        delta = target - await repo.available(db, part.id, body.location_id)
        if delta == 0:
            raise InvalidField("onHand", "the stock is already at this quantity")
        return await self.move(
            db, ctx, part, body.location_id, delta, "ADJUSTMENT", field="onHand", reason=body.reason
        )


stock = StockService()
