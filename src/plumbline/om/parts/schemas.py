"""Parts, stock locations, stock levels and the stock ledger (issue 29, item 1)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Literal

from fastapi import Query
from pydantic import BaseModel, Field, StringConstraints

from plumbline.kit.schema import Flag, Patch, Quantity, Schema

Ref = Annotated[str, StringConstraints(min_length=1, max_length=32)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Reason = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
MoveKind = Literal["RECEIPT", "TRANSFER_IN", "TRANSFER_OUT", "ADJUSTMENT", "CONSUMPTION", "RETURN"]


class PartCreate(Schema):
    name: Name
    unit: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]
    sku: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] | None = None
    material_id: Ref | None = Field(
        default=None, description="The catalogue material this part is the stocked form of"
    )
    whole_units: Flag = Field(
        default=True, description="Counted in whole units: fractional quantities are refused"
    )
    unit_cost: Quantity = Field(default=Decimal(0), description="The cost of one unit (4 decimals)")
    min_quantity: Quantity = Field(
        default=Decimal(0), description="Below it at a location: a notice"
    )
    reorder_quantity: Quantity = Field(default=Decimal(0), description="What a reorder asks for")


class PartUpdate(Patch, PartCreate):
    not_null = ("name", "unit", "whole_units", "unit_cost", "min_quantity", "reorder_quantity")
    name: Name | None = None  # type: ignore[assignment]
    unit: (
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)] | None
    ) = None  # type: ignore[assignment]
    whole_units: Flag | None = None  # type: ignore[assignment]
    unit_cost: Quantity | None = None  # type: ignore[assignment]
    min_quantity: Quantity | None = None  # type: ignore[assignment]
    reorder_quantity: Quantity | None = None  # type: ignore[assignment]


class PartRead(BaseModel):
    id: str
    workspaceId: str
    materialId: str | None
    sku: str | None
    name: str
    unit: str
    wholeUnits: bool
    unitCost: str
    minQuantity: str
    reorderQuantity: str
    createdAt: str
    updatedAt: str


class LocationCreate(Schema):
    name: Name


class LocationRead(BaseModel):
    id: str
    projectId: str
    name: str
    createdAt: str
    updatedAt: str


class LevelRead(BaseModel):
    id: str
    partId: str
    locationId: str
    onHand: str
    partName: str
    sku: str | None
    unit: str
    minQuantity: str
    reorderQuantity: str
    belowMinimum: bool
    updatedAt: str


class MoveRead(BaseModel):
    id: str
    projectId: str
    partId: str
    locationId: str
    kind: MoveKind
    quantity: str
    balanceAfter: str
    unitCost: str | None
    reason: str | None
    workOrderId: str | None
    costId: str | None
    purchaseOrderId: str | None
    createdBy: str | None
    createdAt: str


class ReceiptCreate(Schema):
    """Stock received outside a purchase order (MANAGER+)."""

    part_id: Ref
    location_id: Ref
    quantity: Quantity
    unit_cost: Quantity | None = None
    reason: Reason | None = None


class TransferCreate(Schema):
    part_id: Ref
    from_location_id: Ref
    to_location_id: Ref
    quantity: Quantity


class AdjustmentCreate(Schema):
    """A stock count (MANAGER+): the ledger records the difference to ``onHand``."""

    part_id: Ref
    location_id: Ref
    on_hand: Quantity
    reason: Reason


@dataclass
class MoveFilters:
    part_id: str | None = None
    location_id: str | None = None
    work_order_id: str | None = None


def move_filters(
    partId: Annotated[str | None, Query(max_length=32)] = None,
    locationId: Annotated[str | None, Query(max_length=32)] = None,
    workOrderId: Annotated[str | None, Query(max_length=32)] = None,
) -> MoveFilters:
    return MoveFilters(partId, locationId, workOrderId)


@dataclass
class LevelFilters:
    location_id: str | None = None
    below_minimum: bool | None = None


def level_filters(
    locationId: Annotated[str | None, Query(max_length=32)] = None,
    belowMinimum: Annotated[bool | None, Query()] = None,
) -> LevelFilters:
    return LevelFilters(locationId, belowMinimum)
