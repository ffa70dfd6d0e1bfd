"""Work-order costs: parts used, labour (entries and a running timer), other lines; and the
workspace's labour rates (issue 29, item 2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Query
from pydantic import BaseModel, Field, Strict, StringConstraints

from plumbline.issue.schemas import CostTotals
from plumbline.kit.schema import Money, Quantity, Schema
from plumbline.om.schema import Instant

Ref = Annotated[str, StringConstraints(min_length=1, max_length=32)]
Text500 = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
CostKind = Literal["PART", "LABOUR", "OTHER"]
Category = Literal["CONTRACTOR", "TRAVEL", "OTHER"]
DAY_MINUTES = 24 * 60


class PartUse(Schema):
    """A part used: from a location's stock (``partId`` + ``locationId``: the ledger takes
    it), or a non-stock purchase (``description`` + ``unitCost``, ``partId`` optional)."""

    part_id: Ref | None = None
    location_id: Ref | None = None
    quantity: Quantity
    unit_cost: Quantity | None = Field(
        default=None, description="The cost of one unit; default: the part's"
    )
    description: Text500 | None = None
    incurred_at: Instant | None = Field(
        default=None, description="When the cost was incurred (not in the future); default: now"
    )


class LabourCreate(Schema):
    """Labour: ``startedAt`` + ``endedAt``, or ``minutes`` (at most 24 h either way)."""

    user_id: Ref | None = Field(default=None, description="Who worked; default: the caller")
    started_at: Instant | None = None
    ended_at: Instant | None = None
    minutes: Annotated[int, Strict(), Field(ge=1, le=DAY_MINUTES)] | None = None
    hourly_rate: Quantity | None = Field(
        default=None, description="Default: the person's labour rate in the workspace"
    )
    description: Text500 | None = None
    incurred_at: Instant | None = Field(
        default=None,
        description="When the cost was incurred (not in the future); default: startedAt, else now",
    )


class TimerStart(Schema):
    hourly_rate: Quantity | None = None
    description: Text500 | None = None


class OtherCreate(Schema):
    category: Category
    description: Text500
    amount: Money
    incurred_at: Instant | None = Field(
        default=None, description="When the cost was incurred (not in the future); default: now"
    )


class CostRead(BaseModel):
    id: str
    projectId: str
    workOrderId: str
    kind: CostKind
    category: Category | None
    description: str | None
    partId: str | None
    locationId: str | None
    quantity: str | None
    unitCost: str | None
    userId: str | None
    startedAt: str | None
    endedAt: str | None
    minutes: int | None
    hourlyRate: str | None
    running: bool
    amount: str
    incurredAt: str
    createdBy: str | None
    createdAt: str
    updatedAt: str


class WorkOrderCosts(BaseModel):
    workOrderId: str
    assetId: str | None
    currency: str
    totals: CostTotals
    lines: list[CostRead]


class RateSet(Schema):
    hourly_rate: Quantity


class RateRead(BaseModel):
    userId: str
    workspaceId: str
    hourlyRate: str
    updatedAt: str


@dataclass
class CostFilters:
    work_order_id: str | None = None
    asset_id: str | None = None
    kind: str | None = None


def cost_filters(
    workOrderId: Annotated[str | None, Query(max_length=32)] = None,
    assetId: Annotated[str | None, Query(max_length=32)] = None,
    kind: Annotated[CostKind | None, Query()] = None,
) -> CostFilters:
    return CostFilters(workOrderId, assetId, kind)
