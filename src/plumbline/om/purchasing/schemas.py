"""Vendors and purchase orders (issue 29, item 3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Query
from pydantic import BaseModel, Field, StringConstraints

from plumbline.kit.schema import EmailAddress, Flag, Patch, Quantity, Schema

Ref = Annotated[str, StringConstraints(min_length=1, max_length=32)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Text200 = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Notes = Annotated[str, StringConstraints(strip_whitespace=True, max_length=5000)]
Status = Literal["DRAFT", "APPROVED", "ORDERED", "PARTIALLY_RECEIVED", "RECEIVED", "CANCELLED"]
MAX_LINES = 200


class VendorCreate(Schema):
    name: Name
    contact_name: Text200 | None = None
    email: EmailAddress | None = None
    phone: Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)] | None = None
    address: Notes | None = None


class VendorUpdate(Patch, VendorCreate):
    not_null = ("name",)
    name: Name | None = None  # type: ignore[assignment]


class VendorRead(BaseModel):
    id: str
    workspaceId: str
    name: str
    contactName: str | None
    email: str | None
    phone: str | None
    address: str | None
    createdAt: str
    updatedAt: str


class LineIn(Schema):
    part_id: Ref
    quantity: Quantity
    unit_cost: Quantity | None = Field(default=None, description="Default: the part's unit cost")


class OrderCreate(Schema):
    vendor_id: Ref
    location_id: Ref = Field(description="The stock location the parts are received into")
    notes: Notes | None = None
    lines: list[LineIn] = Field(min_length=1, max_length=MAX_LINES)


class OrderUpdate(Patch, OrderCreate):
    """A DRAFT order's fields; ``lines`` as a whole list."""

    not_null = ("vendor_id", "location_id", "lines")
    vendor_id: Ref | None = None  # type: ignore[assignment]
    location_id: Ref | None = None  # type: ignore[assignment]
    lines: list[LineIn] | None = Field(default=None, min_length=1, max_length=MAX_LINES)  # type: ignore[assignment]


class LineRead(BaseModel):
    id: str
    partId: str
    partName: str
    sku: str | None
    unit: str
    quantity: str
    unitCost: str
    amount: str
    receivedQuantity: str


class OrderRead(BaseModel):
    id: str
    projectId: str
    number: int
    reference: str
    vendorId: str
    vendorName: str
    locationId: str
    status: Status
    currency: str
    notes: str | None
    total: str
    approvedBy: str | None
    approvedAt: str | None
    orderedAt: str | None
    receivedAt: str | None
    cancelledAt: str | None
    emailedAt: str | None
    createdBy: str | None
    createdAt: str
    updatedAt: str
    lines: list[LineRead]


class OrderSummary(BaseModel):
    id: str
    projectId: str
    number: int
    vendorId: str
    locationId: str
    status: Status
    currency: str
    total: str
    createdAt: str
    updatedAt: str


class Send(Schema):
    email: Flag = Field(default=True, description="E-mail the order's PDF to the vendor")


class Received(Schema):
    line_id: Ref = Field(description="A line of this order")
    quantity: Quantity


class Receive(Schema):
    lines: list[Received] = Field(min_length=1, max_length=MAX_LINES)


@dataclass
class OrderFilters:
    status: str | None = None
    vendor_id: str | None = None


def order_filters(
    status: Annotated[Status | None, Query()] = None,
    vendorId: Annotated[str | None, Query(max_length=32)] = None,
) -> OrderFilters:
    return OrderFilters(status, vendorId)
