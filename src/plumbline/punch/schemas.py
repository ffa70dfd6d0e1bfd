"""Request and response shapes of punch items and their list filters."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Literal

from fastapi import Query
from pydantic import BaseModel, Field, StringConstraints, model_validator

from plumbline.file.schemas import FileName
from plumbline.kit.pagination import UpdatedSince
from plumbline.kit.schema import (
    ByteCount,
    CalendarDay,
    PageNumber,
    Patch,
    Pin,
    PinRead,
    Schema,
    Title,
)

PunchStatus = Literal["OPEN", "IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED"]
PunchPriority = Literal["P1", "P2", "P3"]
MAX_ASSIGNEES = 50
MAX_BULK = 200


UserIds = Annotated[
    list[Annotated[str, StringConstraints(max_length=64)]], Field(max_length=MAX_ASSIGNEES)
]


@dataclass(frozen=True)
class PunchFilters:
    status: str | None = None
    priority: str | None = None
    assignee_id: str | None = None
    trade: str | None = None
    q: str | None = None
    updated_since: datetime | None = None


async def punch_filters(
    status: Annotated[PunchStatus | None, Query()] = None,
    priority: Annotated[PunchPriority | None, Query()] = None,
    assignee_id: Annotated[str | None, Query(alias="assigneeId", max_length=64)] = None,
    trade: Annotated[str | None, Query(max_length=200)] = None,
    q: Annotated[
        str | None, Query(max_length=200, description="Text in title, notes, location")
    ] = None,
    updated_since: UpdatedSince = None,
) -> PunchFilters:
    return PunchFilters(status, priority, assignee_id, trade, q or None, updated_since)


class PunchCreate(Schema):
    title: Title
    location: str | None = Field(None, max_length=500)
    trade: str | None = Field(None, max_length=200)
    priority: PunchPriority = "P2"
    assignee_ids: UserIds | None = None
    due_date: CalendarDay | None = None
    notes: str | None = Field(None, max_length=20000)
    file_version_id: str | None = Field(None, max_length=64)
    page_number: PageNumber | None = None
    pin: Pin | None = None


class PunchUpdate(Patch):
    """Only the fields sent are applied; ``null`` clears the optional ones."""

    not_null = ("title", "priority", "status", "assignee_ids")
    title: Title | None = None
    location: str | None = Field(None, max_length=500)
    trade: str | None = Field(None, max_length=200)
    priority: PunchPriority | None = None
    status: PunchStatus | None = None
    assignee_ids: UserIds | None = None
    due_date: CalendarDay | None = None
    notes: str | None = Field(None, max_length=20000)
    file_version_id: str | None = Field(None, max_length=64)
    page_number: PageNumber | None = None
    pin: Pin | None = None


class PunchBulkUpdate(Schema):
    ids: list[Annotated[str, StringConstraints(max_length=64)]] = Field(
        min_length=1, max_length=MAX_BULK
    )
    status: PunchStatus | None = None
    assignee_ids: UserIds | None = None

    @model_validator(mode="after")
    def _something_to_do(self) -> PunchBulkUpdate:
        if self.status is None and self.assignee_ids is None:
            raise ValueError("give status and/or assigneeIds")
        return self


class PunchPhotoPresign(Schema):
    file_name: FileName
    content_type: str = Field(max_length=200)
    size_bytes: ByteCount = Field(ge=1)


class PunchPhotoComplete(Schema):
    upload_id: str = Field(max_length=64)
    sha256: str | None = Field(None, pattern=r"^[0-9a-fA-F]{64}$")


class PhotoRead(BaseModel, extra="allow"):
    id: str
    fileName: str
    contentType: str
    sizeBytes: int


class PunchRead(BaseModel):
    id: str
    projectId: str
    punchNumber: int
    title: str
    location: str | None
    trade: str | None
    priority: PunchPriority
    status: PunchStatus
    assigneeIds: list[str]
    dueDate: date | None
    notes: str | None
    fileVersionId: str | None
    pageNumber: int | None
    pin: PinRead | None
    referencePhotos: list[PhotoRead]
    closedAt: datetime | None
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


class PunchBulkResult(BaseModel):
    id: str
    ok: bool
    error: str | None = None
    code: str | None = None


class PunchBulkResults(BaseModel):
    results: list[PunchBulkResult]
