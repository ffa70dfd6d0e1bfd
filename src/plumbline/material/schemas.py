"""Request and response shapes of materials and their list filters."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Annotated

from fastapi import Query
from pydantic import BaseModel, Field, StringConstraints

from plumbline.kit.schema import ExternalId, Flag, Money, Patch, Schema
from plumbline.records.bulk import MAX_RECORDS, Lenient

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
    external_id: ExternalId | None = Field(
        default=None, description="Your own key for the material, unique in the workspace"
    )


class MaterialUpdate(Patch):
    not_null = ("name", "unit", "unit_price", "currency")
    name: Name | None = None
    unit: Unit | None = None
    unit_price: Money | None = None
    currency: Currency | None = None
    sku: Label | None = None
    category: Label | None = None
    supplier: Supplier | None = None
    external_id: ExternalId | None = None


class MaterialRecord(MaterialCreate):
    """A record of a bulk upsert: the create body with its (required) key. An existing material
    with this key gets the fields sent, as a PATCH would."""

    external_id: ExternalId


class MaterialBulk(Schema):
    records: list[Lenient[MaterialRecord]] = Field(min_length=1, max_length=MAX_RECORDS)
    all_or_nothing: Flag = Field(
        default=False, description="Any refused record and nothing is written (400)"
    )


class MaterialRead(BaseModel):
    id: str
    workspaceId: str
    externalId: str | None
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
    external_id: str | None = None


async def material_filters(
    q: Annotated[
        str | None, Query(max_length=200, description="Text in name, SKU or supplier")
    ] = None,
    category: Annotated[str | None, Query(max_length=100, description="Exact category")] = None,
    external_id: Annotated[
        str | None, Query(alias="externalId", max_length=255, description="Exactly this key")
    ] = None,
) -> MaterialFilters:
    return MaterialFilters(q or None, category or None, external_id or None)


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
