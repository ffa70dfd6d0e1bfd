"""Every vendor and purchase-order query: vendors within a workspace, orders within a project."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.pagination import PageParams
from plumbline.models import Part, PurchaseOrder, PurchaseOrderLine, Vendor
from plumbline.om.purchasing.schemas import OrderFilters, OrderSummary, VendorRead
from plumbline.records.fields import Fields

VENDOR_FIELDS = Fields(Vendor.__table__, {n: to_snake(n) for n in VendorRead.model_fields})
SUMMARY_FIELDS = Fields(
    PurchaseOrder.__table__, {n: to_snake(n) for n in OrderSummary.model_fields}
)
ORDER_NAMES = (
    "id",
    "projectId",
    "number",
    "vendorId",
    "locationId",
    "status",
    "currency",
    "notes",
    "total",
    "approvedBy",
    "approvedAt",
    "orderedAt",
    "receivedAt",
    "cancelledAt",
    "emailedAt",
    "createdBy",
    "createdAt",
    "updatedAt",
)
ORDER_FIELDS = Fields(PurchaseOrder.__table__, {n: to_snake(n) for n in ORDER_NAMES})
LINE_COLUMNS = (
    PurchaseOrderLine.purchase_order_id,
    PurchaseOrderLine.id,
    PurchaseOrderLine.part_id,
    Part.name,
    Part.sku,
    Part.unit,
    PurchaseOrderLine.quantity,
    PurchaseOrderLine.unit_cost,
    PurchaseOrderLine.amount,
    PurchaseOrderLine.received_quantity,
)


async def list_vendors(
    db: AsyncSession, workspace_id: str, page: PageParams
) -> Sequence[Sequence[Any]]:
    query = select(*VENDOR_FIELDS.columns).where(
        Vendor.workspace_id == workspace_id, Vendor.deleted_at.is_(None)
    )
    return (await db.execute(page.apply(query, Vendor.id))).all()


async def get_vendor(db: AsyncSession, workspace_id: str, vendor_id: str) -> Vendor | None:
    query = select(Vendor).where(
        Vendor.id == vendor_id, Vendor.workspace_id == workspace_id, Vendor.deleted_at.is_(None)
    )
    return (await db.execute(query)).scalar_one_or_none()


async def vendor_name(db: AsyncSession, vendor_id: str) -> Vendor | None:
    """The vendor an order names, deleted or not (an order keeps its vendor)."""
    return (await db.execute(select(Vendor).where(Vendor.id == vendor_id))).scalar_one_or_none()


async def list_orders(
    db: AsyncSession, project_id: str, filters: OrderFilters, page: PageParams
) -> Sequence[Sequence[Any]]:
    query = select(*SUMMARY_FIELDS.columns).where(
        PurchaseOrder.project_id == project_id, PurchaseOrder.deleted_at.is_(None)
    )
    if filters.status is not None:
        query = query.where(PurchaseOrder.status == filters.status)
    if filters.vendor_id is not None:
        query = query.where(PurchaseOrder.vendor_id == filters.vendor_id)
    return (await db.execute(page.apply(query, PurchaseOrder.id))).all()


async def get_order(
    db: AsyncSession, project_id: str, order_id: str, *, lock: bool = False
) -> PurchaseOrder | None:
    query = select(PurchaseOrder).where(
        PurchaseOrder.id == order_id,
        PurchaseOrder.project_id == project_id,
        PurchaseOrder.deleted_at.is_(None),
    )
    if lock:
        query = query.with_for_update()
    return (await db.execute(query)).scalar_one_or_none()


async def lines_of(db: AsyncSession, order_ids: Sequence[str]) -> Sequence[Sequence[Any]]:
    query = (
        select(*LINE_COLUMNS)
        .join(Part, Part.id == PurchaseOrderLine.part_id)
        .where(PurchaseOrderLine.purchase_order_id.in_(order_ids))
        .order_by(PurchaseOrderLine.purchase_order_id, PurchaseOrderLine.position)
    )
    return (await db.execute(query)).all()


async def line_entities(db: AsyncSession, order_id: str) -> Sequence[PurchaseOrderLine]:
    query = (
        select(PurchaseOrderLine)
        .where(PurchaseOrderLine.purchase_order_id == order_id)
        .order_by(PurchaseOrderLine.position)
    )
    return (await db.execute(query)).scalars().all()


async def replace_lines(db: AsyncSession, order_id: str, lines: list[PurchaseOrderLine]) -> None:
    await db.execute(
        delete(PurchaseOrderLine).where(PurchaseOrderLine.purchase_order_id == order_id)
    )
    db.add_all(lines)
    await db.flush()


async def parts(db: AsyncSession, workspace_id: str, ids: Sequence[str]) -> dict[str, Part]:
    query = select(Part).where(
        Part.id.in_(ids), Part.workspace_id == workspace_id, Part.deleted_at.is_(None)
    )
    return {part.id: part for part in (await db.execute(query)).scalars()}


async def orders_by_id(db: AsyncSession, ids: Sequence[str]) -> Sequence[Sequence[Any]]:
    query = (
        select(*ORDER_FIELDS.columns, Vendor.name)
        .join(Vendor, Vendor.id == PurchaseOrder.vendor_id)
        .where(PurchaseOrder.id.in_(ids))
    )
    return (await db.execute(query)).all()


async def parts_any(db: AsyncSession, ids: Sequence[str]) -> dict[str, Part]:
    """The parts an order's lines name, deleted or not (an order keeps its lines)."""
    query = select(Part).where(Part.id.in_(ids))
    return {part.id: part for part in (await db.execute(query)).scalars()}
