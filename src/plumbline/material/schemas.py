"""Request and response shapes of materials and their list filters."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Annotated

from fastapi import Query
from pydantic import BaseModel, StringConstraints

from plumbline.kit.schema import Money, Patch, Schema

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Unit = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]
Label = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Supplier = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
# ISO 4217 alphabetic codes are three capital letters.
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$", min_length=3, max_length=3)]


class MaterialCreate(Schema):
    name: Name
    unit: Unit
    unit_price: Money = Decimal(0)
    currency: Currency | None = None
    sku: Label | None = None
    category: Label | None = None
    supplier: Supplier | None = None


class MaterialUpdate(Patch):
    not_null = ("name", "unit", "unit_price", "currency")
    name: Name | None = None
    unit: Unit | None = None
    unit_price: Money | None = None
    currency: Currency | None = None
    sku: Label | None = None
    category: Label | None = None
    supplier: Supplier | None = None


class MaterialRead(BaseModel):
    id: str
    workspaceId: str
    name: str
    unit: str
    unitPrice: str
    currency: str
    sku: str | None
    category: str | None
    supplier: str | None
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


@dataclass(frozen=True)
class MaterialFilters:
    q: str | None = None
    category: str | None = None


async def material_filters(
    q: Annotated[
        str | None, Query(max_length=200, description="Text in name, SKU or supplier")
    ] = None,
    category: Annotated[str | None, Query(max_length=100, description="Exact category")] = None,
) -> MaterialFilters:
    return MaterialFilters(q or None, category or None)


class ImportRow(BaseModel):
    row: int
    ok: bool
    errors: list[str]
    action: str | None = None
    id: str | None = None


class ImportResult(BaseModel):
    dryRun: bool
    created: int
    updated: int
    results: list[ImportRow]
