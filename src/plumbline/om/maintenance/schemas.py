"""Request and response shapes of the maintenance-schedule routes (spec: create ``{assetId,
title, frequency}`` answers ``{id, projectId, assetId, title, frequency, ...}``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, Strict, StringConstraints, model_validator

from plumbline.issue.schemas import ChecklistItem, Priority, Ref
from plumbline.kit.schema import Flag, Number, Patch, Schema, Title
from plumbline.om.recurrence import MAX_INTERVAL_DAYS
from plumbline.om.schema import Instant

Frequency = Literal[
    "DAILY", "WEEKLY", "BIWEEKLY", "MONTHLY", "QUARTERLY", "SEMI_ANNUAL", "ANNUAL", "CUSTOM"
]
Basis = Literal["FIXED", "FLOATING"]
Health = Literal["OVERDUE", "DUE_SOON", "ON_TRACK"]
MeterType = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]
IntervalDays = Annotated[int, Strict(), Field(ge=1, le=MAX_INTERVAL_DAYS)]
MeterAmount = Annotated[Number, Field(ge=0.0001, le=1e13)]
MeterLevel = Annotated[Number, Field(ge=-1e13, le=1e13)]
Description = Annotated[str, Field(max_length=20000)]


class MaintenanceScheduleCreate(Schema):
    asset_id: Ref
    title: Title
    frequency: Frequency
    description: Description | None = None
    interval_days: IntervalDays | None = None
    basis: Basis = "FLOATING"
    next_due_at: Instant | None = Field(
        default=None, description="The first due (default: now, so it is due today)"
    )
    assignee_id: Ref | None = None
    priority: Priority = "MEDIUM"
    meter_type: MeterType | None = None
    meter_interval: MeterAmount | None = None
    meter_threshold: MeterLevel | None = None
    checklist: list[ChecklistItem] = Field(default_factory=list, max_length=200)
    is_active: Flag = True

    @model_validator(mode="after")
    def _consistent(self) -> MaintenanceScheduleCreate:
        check(
            self.frequency,
            self.interval_days,
            self.meter_type,
            self.meter_interval,
            self.meter_threshold,
        )
        return self


def check(
    frequency: str,
    interval_days: int | None,
    meter_type: str | None,
    meter_interval: float | None,
    meter_threshold: float | None,
) -> None:
    """CUSTOM and only CUSTOM has ``intervalDays``; a meter schedule names its meter and one of
    ``meterInterval`` or ``meterThreshold``."""
    if frequency == "CUSTOM" and interval_days is None:
        raise ValueError("intervalDays is required with a CUSTOM frequency")
    if frequency != "CUSTOM" and interval_days is not None:
        raise ValueError("intervalDays is only for a CUSTOM frequency")
    if meter_interval is not None and meter_threshold is not None:
        raise ValueError("give meterInterval or meterThreshold, not both")
    if meter_type is None and (meter_interval is not None or meter_threshold is not None):
        raise ValueError("meterInterval and meterThreshold need a meterType")
    if meter_type is not None and meter_interval is None and meter_threshold is None:
        raise ValueError("a meter schedule needs meterInterval or meterThreshold")


class MaintenanceScheduleUpdate(Patch):
    """Only the fields sent change. ``nextDueAt`` re-anchors the calendar; ``isActive: false``
    pauses the schedule (no work orders are generated), ``true`` resumes it."""

    not_null = ("title", "frequency", "basis", "next_due_at", "priority", "checklist", "is_active")
    title: Title | None = None
    frequency: Frequency | None = None
    description: Description | None = None
    interval_days: IntervalDays | None = None
    basis: Basis | None = None
    next_due_at: Instant | None = None
    assignee_id: Ref | None = None
    priority: Priority | None = None
    meter_type: MeterType | None = None
    meter_interval: MeterAmount | None = None
    meter_threshold: MeterLevel | None = None
    checklist: list[ChecklistItem] | None = Field(default=None, max_length=200)
    is_active: Flag | None = None


class ChecklistRead(BaseModel):
    id: str
    label: str
    done: bool


class MaintenanceScheduleRead(BaseModel):
    id: str
    projectId: str
    assetId: str
    title: str
    frequency: Frequency
    description: str | None
    intervalDays: int | None
    basis: Basis
    nextDueAt: datetime = Field(description="When it is due: the calendar or the meter, first")
    calendarDueAt: datetime
    meterDueAt: datetime | None = Field(description="When a reading met the meter condition")
    dueLabel: Literal["Calendar", "Meter/calendar"]
    lastCompletedAt: datetime | None
    assigneeId: str | None
    priority: Priority
    meterType: str | None
    meterInterval: float | None
    meterThreshold: float | None
    checklist: list[ChecklistRead]
    isActive: bool
    health: Health
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


class CompleteBody(Schema):
    notes: Annotated[str, Field(max_length=20000)] | None = None
    work_order_id: Ref | None = None
    completed_at: Instant | None = None


class CompletionRead(BaseModel):
    id: str
    scheduleId: str
    workOrderId: str | None
    dueAt: datetime
    completedAt: datetime
    completedBy: str | None
    onTime: bool
    notes: str | None
    schedule: MaintenanceScheduleRead


class GenerateRead(BaseModel):
    created: list[str]
    existing: list[str]
