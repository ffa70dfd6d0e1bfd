"""Request and response shapes of field reports (weather, manpower, equipment rows)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Literal

from fastapi import Query
from pydantic import (
    BaseModel,
    Field,
    StringConstraints,
    model_validator,
)

from plumbline.kit.schema import CalendarDay, EmailAddress, Number, Patch, Schema, Title

ReportKind = Literal["DAILY", "WEEKLY"]
ReportStatus = Literal["DRAFT", "SUBMITTED"]
MAX_RECIPIENTS = 25


LongText = Annotated[str, StringConstraints(max_length=20000)]


class Weather(Schema):
    conditions: str | None = Field(None, max_length=200)
    high_temp: Number | None = Field(None, ge=-100, le=200)
    low_temp: Number | None = Field(None, ge=-100, le=200)
    precipitation: str | Annotated[Number, Field(ge=0, le=100_000)] | None = None

    @model_validator(mode="after")
    def _short_precipitation(self) -> Weather:
        if isinstance(self.precipitation, str) and len(self.precipitation) > 200:
            raise ValueError("precipitation is too long")
        return self


class ManpowerRow(Schema):
    company: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    trade: str | None = Field(None, max_length=200)
    workers: int = Field(ge=0, le=100000, strict=True)
    hours: Number = Field(0, ge=0, le=1000000)


Manpower = Annotated[list[ManpowerRow], Field(max_length=200)]


class _ReportFields(Schema):
    title: Title | None = None
    report_date: CalendarDay | None = None
    report_kind: ReportKind | None = None
    status: ReportStatus | None = None
    weather: Weather | None = None
    manpower: Manpower | None = None
    work_performed: LongText | None = None
    delays: LongText | None = None
    safety_notes: LongText | None = None
    notes: LongText | None = None


class FieldReportCreate(_ReportFields):
    title: Title
    report_kind: ReportKind = "DAILY"
    status: ReportStatus = "DRAFT"
    manpower: Manpower = Field(default_factory=list)


class FieldReportUpdate(_ReportFields, Patch):
    """Only the fields sent are applied; ``null`` clears the optional ones."""

    not_null = ("title", "report_date", "report_kind", "status", "manpower")


class SendEmail(Schema):
    report_id: str = Field(max_length=64)
    recipients: list[EmailAddress] = Field(min_length=1, max_length=MAX_RECIPIENTS)
    message: str | None = Field(None, max_length=5000)


@dataclass(frozen=True)
class ReportFilters:
    status: str | None = None
    report_kind: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    q: str | None = None


async def report_filters(
    status: Annotated[ReportStatus | None, Query()] = None,
    report_kind: Annotated[ReportKind | None, Query(alias="reportKind")] = None,
    date_from: Annotated[
        date | None, Query(alias="from", description="First reportDate (YYYY-MM-DD)")
    ] = None,
    date_to: Annotated[
        date | None, Query(alias="to", description="Last reportDate (YYYY-MM-DD)")
    ] = None,
    q: Annotated[str | None, Query(max_length=200, description="Text in title and notes")] = None,
) -> ReportFilters:
    return ReportFilters(status, report_kind, date_from, date_to, q or None)


class WeatherRead(BaseModel):
    conditions: str | None = None
    highTemp: float | None = None
    lowTemp: float | None = None
    precipitation: str | float | None = None


class ManpowerRead(BaseModel):
    company: str
    trade: str | None
    workers: int
    hours: float


class FieldReportRead(BaseModel):
    id: str
    projectId: str
    title: str
    reportDate: date
    reportKind: ReportKind
    status: ReportStatus
    weather: WeatherRead | None
    manpower: list[ManpowerRead]
    totalWorkers: int
    workPerformed: str | None
    delays: str | None
    safetyNotes: str | None
    notes: str | None
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime
    lastEmailedAt: datetime | None
    emailCount: int


class EmailSent(BaseModel):
    ok: bool
    sent: int
    lastEmailedAt: datetime
