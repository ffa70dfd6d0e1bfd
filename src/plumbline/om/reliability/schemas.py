"""Asset downtime and the reliability report (issue 29, item 4)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Query
from pydantic import BaseModel, Field, StringConstraints

from plumbline.issue.schemas import CostTotals
from plumbline.kit.schema import Flag, Patch, Schema
from plumbline.om.schema import Instant

Ref = Annotated[str, StringConstraints(min_length=1, max_length=32)]
Reason = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)]


class DowntimeCreate(Schema):
    """The asset OFFLINE from ``startedAt`` (default now) to ``endedAt`` (none: still down)."""

    started_at: Instant | None = None
    ended_at: Instant | None = None
    planned: Flag = Field(default=False, description="Planned downtime is not a failure")
    reason: Reason | None = None
    work_order_id: Ref | None = Field(
        default=None, description="The work order that took it down: resolving it brings it up"
    )


class DowntimeUpdate(Patch):
    """Close an interval (``endedAt``) or correct it."""

    started_at: Instant | None = None
    ended_at: Instant | None = None
    planned: Flag | None = None
    reason: Reason | None = None
    not_null = ("started_at", "planned")


class DowntimeRead(BaseModel):
    id: str
    projectId: str
    assetId: str
    status: str = Field(description="OFFLINE while open, else ONLINE (it ended)")
    planned: bool
    reason: str | None
    startedAt: str
    endedAt: str | None
    workOrderId: str | None
    createdBy: str | None
    createdAt: str
    updatedAt: str


class Reliability(BaseModel):
    assetId: str
    tag: str
    name: str
    from_: str = Field(alias="from")
    to: str
    periodHours: float
    downtimeHours: float
    plannedDowntimeHours: float
    unplannedDowntimeHours: float
    availability: float = Field(ge=0, le=1)
    failures: int
    mttrHours: float | None
    mtbfHours: float | None
    cost: CostTotals


@dataclass
class Window:
    start: datetime | None
    end: datetime | None


def window(
    from_: Annotated[
        Instant | None, Query(alias="from", description="Start (date-time); default: to - 30 days")
    ] = None,
    to: Annotated[
        Instant | None,
        Query(description="End (date-time, at most now); default: the start of this hour"),
    ] = None,
) -> Window:
    return Window(from_, to)


class ReliabilityReport(BaseModel):
    from_: str = Field(alias="from")
    to: str
    currency: str
    assets: list[Reliability]
