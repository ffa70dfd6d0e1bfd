"""Request and response shapes of the asset routes (PRODUCT §9)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Literal

from fastapi import Query
from pydantic import BaseModel, Field, StringConstraints, model_validator

from plumbline.kit.schema import CalendarDay, ExternalId, Flag, Number, Patch, Schema
from plumbline.om.schema import Instant
from plumbline.records.bulk import MAX_RECORDS, Lenient

AssetStatus = Literal["ACTIVE", "INACTIVE", "RETIRED"]
Ref = Annotated[str, StringConstraints(min_length=1, max_length=32)]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
MeterType = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]
Text200 = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
# Meter values: 14 integer digits (the column keeps 4 decimals).
MAX_METER = 1e13
MeterValue = Annotated[Number, Field(ge=-MAX_METER, le=MAX_METER)]
MAX_METERS = 20


class MeterIn(Schema):
    """A meter the asset has. ``cumulative`` meters (run hours, cycles, kWh, odometers) only go
    up; others (temperature, pressure, vibration) go either way."""

    type: MeterType
    unit: Annotated[str, StringConstraints(strip_whitespace=True, max_length=30)] = ""
    cumulative: Flag = True


def _unique_meters(meters: list[MeterIn] | None) -> None:
    if meters is None:
        return
    types = [meter.type for meter in meters]
    if len(set(types)) != len(types):
        raise ValueError("each meter type may appear once")


class AssetCreate(Schema):
    tag: Tag
    name: Name
    external_id: ExternalId | None = Field(
        default=None, description="Your own key for the asset, unique among the project's"
    )
    category: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] | None = None
    manufacturer: Text200 | None = None
    model: Text200 | None = None
    serial_number: Text200 | None = None
    location: Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)] | None = None
    install_date: CalendarDay | None = None
    warranty_expires: CalendarDay | None = None
    parent_asset_id: Ref | None = None
    status: AssetStatus = "ACTIVE"
    meters: list[MeterIn] = Field(default_factory=list, max_length=MAX_METERS)

    @model_validator(mode="after")
    def _meters(self) -> AssetCreate:
        _unique_meters(self.meters)
        return self


class AssetUpdate(Patch, AssetCreate):
    """Only the fields sent change; ``meters`` is the whole list (readings of kept types stay)."""

    not_null = ("tag", "name", "status", "meters")
    tag: Tag | None = None  # type: ignore[assignment]
    name: Name | None = None  # type: ignore[assignment]
    status: AssetStatus | None = None  # type: ignore[assignment]
    meters: list[MeterIn] | None = Field(default=None, max_length=MAX_METERS)  # type: ignore[assignment]


class AssetRecord(AssetCreate):
    """A record of a bulk upsert: the create body with its (required) key. An existing asset
    with this key gets the fields sent, as a PATCH would."""

    external_id: ExternalId


class AssetBulk(Schema):
    records: list[Lenient[AssetRecord]] = Field(min_length=1, max_length=MAX_RECORDS)
    all_or_nothing: Flag = Field(
        default=False, description="Any refused record and nothing is written (400)"
    )


class MeterRead(BaseModel):
    type: str
    unit: str
    cumulative: bool
    lastReading: float | None
    lastReadingAt: datetime | None


class AssetRead(BaseModel):
    id: str
    projectId: str
    externalId: str | None
    tag: str
    name: str
    category: str | None
    manufacturer: str | None
    model: str | None
    serialNumber: str | None
    location: str | None
    installDate: date | None
    warrantyExpires: date | None
    parentAssetId: str | None
    status: AssetStatus
    meters: list[MeterRead]
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


class ReadingCreate(Schema):
    meter_type: MeterType
    value: MeterValue
    read_at: Instant | None = None


class ReadingRead(BaseModel):
    id: str
    assetId: str
    meterType: str
    value: float
    readAt: datetime
    recordedBy: str | None
    createdAt: datetime


@dataclass(frozen=True)
class AssetFilters:
    category: str | None = None
    status: str | None = None
    location: str | None = None
    q: str | None = None
    external_id: str | None = None


async def asset_filters(
    category: Annotated[str | None, Query(max_length=100)] = None,
    status: Annotated[AssetStatus | None, Query()] = None,
    location: Annotated[
        str | None, Query(max_length=200, description="Text in the location")
    ] = None,
    q: Annotated[
        str | None,
        Query(max_length=200, description="Text in tag, name, serial number, model, maker"),
    ] = None,
    external_id: Annotated[
        str | None, Query(alias="externalId", max_length=255, description="Exactly this key")
    ] = None,
) -> AssetFilters:
    return AssetFilters(category or None, status, location or None, q or None, external_id or None)


async def reading_filters(
    meter_type: Annotated[str | None, Query(alias="meterType", max_length=50)] = None,
) -> str | None:
    return meter_type or None
