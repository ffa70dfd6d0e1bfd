"""Vendors and purchase orders: DRAFT -> APPROVED (MANAGER+) -> ORDERED (its PDF e-mailed to
the vendor) -> PARTIALLY_RECEIVED -> RECEIVED, or CANCELLED before anything is received.
Receiving adds stock through the ledger, never beyond what was ordered.

Access (om/auth.py): members read; MANAGER+ keeps vendors and orders, approves and receives."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import Conflict, InvalidField, InvalidTransition, NotFound, found
from plumbline.events.readers import reader
from plumbline.kit import clock, money
from plumbline.kit.ids import new_id
from plumbline.kit.mail import Attachment, Mail
from plumbline.kit.money import number_text
from plumbline.kit.pagination import PageParams
from plumbline.kit.sequence import next_number
from plumbline.mail.tasks import queue
from plumbline.models import PurchaseOrder, PurchaseOrderLine, Vendor
from plumbline.om.parts.service import PART, counted, stock
from plumbline.om.purchasing import document
from plumbline.om.purchasing import repository as repo
from plumbline.om.purchasing.repository import ORDER_FIELDS, SUMMARY_FIELDS, VENDOR_FIELDS
from plumbline.om.purchasing.schemas import (
    LineIn,
    OrderCreate,
    OrderFilters,
    OrderUpdate,
    Receive,
    Send,
    VendorUpdate,
)
from plumbline.om.purchasing.vendors import VendorNotFound
from plumbline.records import references
from plumbline.records.references import Kind

VENDOR = Kind("vendor", Vendor, "workspace")
ENTITY = "purchase_order"
VENDOR_AUDITED = tuple(to_camel(name) for name in VendorUpdate.model_fields)
DATES = ("approvedAt", "orderedAt", "receivedAt", "cancelledAt", "emailedAt")


class OrderNotFound(NotFound, message="Purchase order not found"): ...


class NoVendorEmail(Conflict, message="The vendor has no e-mail address"): ...


def _line(row: Sequence[Any]) -> dict[str, Any]:
    _, line_id, part_id, name, sku, unit, quantity, unit_cost, amount, received = row
    return {
        "id": line_id,
        "partId": part_id,
        "partName": name,
        "sku": sku,
        "unit": unit,
        "quantity": number_text(Decimal(quantity)),
        "unitCost": number_text(Decimal(unit_cost)),
        "amount": money.text(Decimal(amount)),
        "receivedQuantity": number_text(Decimal(received)),
    }


def _order(values: dict[str, Any], vendor_name: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
    values["total"] = money.text(Decimal(values["total"]))
    values["reference"] = document.reference(values["number"])
    values["vendorName"] = vendor_name
    values["lines"] = lines
    order = {name: values[name] for name in ("id", "projectId", "number", "reference")}
    return order | values


def _summary(values: dict[str, Any]) -> dict[str, Any]:
    values["total"] = money.text(Decimal(values["total"]))
    return values


@reader(ENTITY)
async def orders_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    rows = await repo.orders_by_id(db, ids)
    lines: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in await repo.lines_of(db, ids):
        lines[row[0]].append(_line(row))
    return {row[0]: _order(ORDER_FIELDS.row(row), row[-1], lines[row[0]]) for row in rows}


class OrderService:
    async def list_orders(
        self, db: AsyncSession, ctx: ProjectContext, filters: OrderFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_orders(db, ctx.project.id, filters, page))
        return [_summary(SUMMARY_FIELDS.row(row)) for row in rows], headers

    async def require(
        self, db: AsyncSession, ctx: ProjectContext, order_id: str, *, lock: bool = False
    ) -> PurchaseOrder:
        return found(await repo.get_order(db, ctx.project.id, order_id, lock=lock), OrderNotFound())

    async def read(self, db: AsyncSession, order: PurchaseOrder) -> dict[str, Any]:
        vendor = found(await repo.vendor_name(db, order.vendor_id), VendorNotFound())
        lines = [_line(row) for row in await repo.lines_of(db, [order.id])]
        return _order(ORDER_FIELDS.read(ORDER_FIELDS.of(order)), vendor.name, lines)

    async def get(self, db: AsyncSession, ctx: ProjectContext, order_id: str) -> dict[str, Any]:
        return await self.read(db, await self.require(db, ctx, order_id))

    async def _lines(
        self, db: AsyncSession, ctx: ProjectContext, order_id: str, body: list[LineIn]
    ) -> tuple[list[PurchaseOrderLine], Decimal]:
        """The order's lines from the body (each part one of the workspace's, counted as it
        is counted) and their total."""
        parts = await repo.parts(db, ctx.workspace.id, [line.part_id for line in body])
        lines, total = [], money.ZERO
        for index, line in enumerate(body):
            part = parts.get(line.part_id)
            if part is None:
                raise references.refused(PART, f"lines.{index}.partId")
            quantity = counted(part, line.quantity, f"lines.{index}.quantity")
            unit_cost = line.unit_cost if line.unit_cost is not None else Decimal(part.unit_cost)
            amount = money.cents(quantity * unit_cost)
            total += amount
            lines.append(
                PurchaseOrderLine(
                    id=new_id(),
                    purchase_order_id=order_id,
                    part_id=part.id,
                    position=index,
                    quantity=quantity,
                    unit_cost=unit_cost,
                    amount=amount,
                    received_quantity=Decimal(0),
                )
            )
        if total > money.MAX_AMOUNT:
            raise InvalidField("lines", "the order's total is too large")
        return lines, total

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, body: OrderCreate
    ) -> dict[str, Any]:
        """A DRAFT order for one of the workspace's vendors, received into one of the project's
        locations (MANAGER+)."""
        await references.require(db, ctx, VENDOR, "vendorId", body.vendor_id)
        await stock.location(db, ctx, body.location_id, "locationId")
        order_id = new_id()
        lines, total = await self._lines(db, ctx, order_id, body.lines)
        now = clock.now()
        order = PurchaseOrder(
            id=order_id,
            project_id=ctx.project.id,
            workspace_id=ctx.workspace.id,
            number=await next_number(db, ctx.project.id, "purchase_order"),
            vendor_id=body.vendor_id,
            location_id=body.location_id,
            status="DRAFT",
            currency=ctx.project.currency,
            notes=body.notes,
            total=total,
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
        )
        db.add(order)
        await db.flush()
        db.add_all(lines)
        await db.flush()
        answer = await self.read(db, order)
        changes = {k: answer[k] for k in ("number", "vendorId", "locationId", "total")}
        await audit_change(db, ctx, (ENTITY, order.id), f"{ENTITY}.created", created(changes))
        return answer

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, order_id: str, body: OrderUpdate
    ) -> dict[str, Any]:
        """Change a DRAFT order (409 once approved)."""
        order = await self.require(db, ctx, order_id, lock=True)
        if order.status != "DRAFT":
            raise InvalidTransition("Only a DRAFT purchase order changes")
        changes = body.sent()
        before = await self.read(db, order)
        if "vendor_id" in changes:
            await references.require(db, ctx, VENDOR, "vendorId", changes["vendor_id"])
            order.vendor_id = changes["vendor_id"]
        if "location_id" in changes:
            await stock.location(db, ctx, changes["location_id"], "locationId")
            order.location_id = changes["location_id"]
        if "notes" in changes:
            order.notes = changes["notes"]
        if body.lines is not None:
            lines, order.total = await self._lines(db, ctx, order.id, body.lines)
            await repo.replace_lines(db, order.id, lines)
        order.updated_at = clock.now()
        await db.flush()
        after = await self.read(db, order)
        diff = {
            k: [before[k], after[k]]
            for k in ("vendorId", "locationId", "notes", "total", "lines")
            if before[k] != after[k]
        }
        if diff:
            await audit_change(db, ctx, (ENTITY, order.id), f"{ENTITY}.updated", diff)
        return after

    async def _move(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        order: PurchaseOrder,
        allowed: Sequence[str],
        status: str,
        verb: str,
        **stamps: Any,
    ) -> dict[str, Any]:
        if order.status not in allowed:
            raise InvalidTransition(
                f"A {order.status} purchase order cannot be {verb}",
            )
        before = order.status
        order.status = status
        for column, value in stamps.items():
            setattr(order, column, value)
        order.updated_at = clock.now()
        await db.flush()
        await audit_change(
            db, ctx, (ENTITY, order.id), f"{ENTITY}.{verb}", {"status": [before, status]}
        )
        return await self.read(db, order)

    async def approve(self, db: AsyncSession, ctx: ProjectContext, order_id: str) -> dict[str, Any]:
        order = await self.require(db, ctx, order_id, lock=True)
        now = clock.now()
        return await self._move(
            db,
            ctx,
            order,
            ("DRAFT",),
            "APPROVED",
            "approved",
            approved_by=ctx.user_id,
            approved_at=now,
        )

    async def order(
        self, uow: UnitOfWork, ctx: ProjectContext, order_id: str, body: Send
    ) -> dict[str, Any]:
        """APPROVED -> ORDERED; the PDF e-mailed to the vendor when asked (and it has an
        address: 409 otherwise)."""
        db = uow.session
        order = await self.require(db, ctx, order_id, lock=True)
        answer = await self._move(
            db, ctx, order, ("APPROVED",), "ORDERED", "ordered", ordered_at=clock.now()
        )
        if body.email:
            answer = await self._email(uow, ctx, order)
        return answer

    async def email(self, uow: UnitOfWork, ctx: ProjectContext, order_id: str) -> dict[str, Any]:
        """E-mail the order's PDF to its vendor again (an approved order onwards)."""
        order = await self.require(uow.session, ctx, order_id, lock=True)
        if order.status in ("DRAFT", "CANCELLED"):
            raise InvalidTransition(f"A {order.status} purchase order is not sent")
        return await self._email(uow, ctx, order)

    async def _email(
        self, uow: UnitOfWork, ctx: ProjectContext, order: PurchaseOrder
    ) -> dict[str, Any]:
        db = uow.session
        vendor = found(await repo.vendor_name(db, order.vendor_id), VendorNotFound())
        if not vendor.email:
            raise NoVendorEmail()
        answer = await self.read(db, order)
        pdf, name = await self._pdf(db, ctx, answer, vendor)
        queue(
            uow,
            Mail(
                to=[vendor.email],
                subject=f"Purchase order {answer['reference']} from {ctx.workspace.name}",
                text=(
                    f"Hello {vendor.contact_name or vendor.name},\n\n"
                    f"Please find attached purchase order {answer['reference']} "
                    f"({answer['total']} {answer['currency']}) for {ctx.project.name}.\n\n"
                    f"{ctx.workspace.name}"
                ),
                attachments=[Attachment(name, "application/pdf", pdf)],
            ),
        )
        now = clock.now()
        order.emailed_at = now
        order.updated_at = now
        await db.flush()
        await audit_change(
            db, ctx, (ENTITY, order.id), f"{ENTITY}.emailed", {"emailedTo": [None, vendor.email]}
        )
        return await self.read(db, order)

    async def _pdf(
        self, db: AsyncSession, ctx: ProjectContext, answer: dict[str, Any], vendor: Vendor
    ) -> tuple[bytes, str]:
        location = await stock.location(db, ctx, answer["locationId"])
        pdf = document.render(
            answer,
            vendor=VENDOR_FIELDS.read(VENDOR_FIELDS.of(vendor)),
            workspace_name=ctx.workspace.name,
            project_name=ctx.project.name,
            location_name=location.name,
        )
        return pdf, document.filename(answer)

    async def pdf(self, db: AsyncSession, ctx: ProjectContext, order_id: str) -> tuple[bytes, str]:
        order = await self.require(db, ctx, order_id)
        vendor = found(await repo.vendor_name(db, order.vendor_id), VendorNotFound())
        return await self._pdf(db, ctx, await self.read(db, order), vendor)

    async def receive(
        self, db: AsyncSession, ctx: ProjectContext, order_id: str, body: Receive
    ) -> dict[str, Any]:
        """Receive lines of an ORDERED (or partly received) order into its location through
        the ledger; never beyond a line's ordered quantity (400 naming the line)."""
        order = await self.require(db, ctx, order_id, lock=True)
        if order.status not in ("ORDERED", "PARTIALLY_RECEIVED"):
            raise InvalidTransition(f"A {order.status} purchase order is not received")
        lines = {line.id: line for line in await repo.line_entities(db, order.id)}
        parts = await repo.parts_any(db, [line.part_id for line in lines.values()])
        taken: dict[str, Decimal] = defaultdict(Decimal)
        for index, received in enumerate(body.lines):
            line = lines.get(received.line_id)
            if line is None:
                raise InvalidField(f"lines.{index}.lineId", "no such line in this order")
            field = f"lines.{index}.quantity"
            counted(parts[line.part_id], received.quantity, field)
            taken[line.id] += received.quantity
            if line.received_quantity + taken[line.id] > line.quantity:
                left = number_text(line.quantity - line.received_quantity)
                raise InvalidField(field, f"more than ordered: {left} left to receive")
        for line_id, quantity in taken.items():
            line = lines[line_id]
            line.received_quantity += quantity
            await stock.move(
                db,
                ctx,
                parts[line.part_id],
                order.location_id,
                quantity,
                "RECEIPT",
                unit_cost=line.unit_cost,
                purchase_order_id=order.id,
            )
        done = all(line.received_quantity >= line.quantity for line in lines.values())
        status = "RECEIVED" if done else "PARTIALLY_RECEIVED"
        stamps = {"received_at": clock.now()} if done else {}
        return await self._move(
            db, ctx, order, ("ORDERED", "PARTIALLY_RECEIVED"), status, "received", **stamps
        )

    async def cancel(self, db: AsyncSession, ctx: ProjectContext, order_id: str) -> dict[str, Any]:
        """Cancel an order nothing of which was received."""
        order = await self.require(db, ctx, order_id, lock=True)
        return await self._move(
            db,
            ctx,
            order,
            ("DRAFT", "APPROVED", "ORDERED"),
            "CANCELLED",
            "cancelled",
            cancelled_at=clock.now(),
        )


orders = OrderService()
