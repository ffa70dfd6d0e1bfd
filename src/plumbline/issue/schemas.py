"""Request and response shapes of the issue routes.

The responses are built as dicts; these models describe them in the OpenAPI.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints, model_validator

from plumbline.file.schemas import FileName
from plumbline.kit.schema import (
    ByteCount,
    CalendarDay,
    ExternalId,
    Flag,
    PageNumber,
    Patch,
    Pin,
    PinRead,
    Schema,
    Title,
)
from plumbline.records.bulk import MAX_RECORDS, Lenient

STATUSES = ("OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED")
PRIORITIES = ("LOW", "MEDIUM", "HIGH", "URGENT")
KINDS = ("CONSTRUCTION", "WORK_ORDER", "OCCUPANT")
COSTED = ("WORK_ORDER", "OCCUPANT")  # the kinds that carry costs (om.costs)

Status = Literal["OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED"]
Priority = Literal["LOW", "MEDIUM", "HIGH", "URGENT"]
IssueKind = Literal["CONSTRUCTION", "WORK_ORDER", "OCCUPANT"]
WorkOrderType = Literal["CORRECTIVE", "PREVENTIVE", "INSPECTION_FOLLOWUP", "OCCUPANT"]

Ref = Annotated[str, StringConstraints(min_length=1, max_length=32)]


class ChecklistItem(Schema):
    id: str | None = Field(default=None, max_length=64)
    label: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
    done: Flag = False

    @model_validator(mode="after")
    def _whole(self) -> ChecklistItem:
        """An item is stored whole: a PATCH's ``exclude_unset`` dump keeps its defaults too."""
        self.__pydantic_fields_set__ = set(type(self).model_fields)
        return self


class _IssueFields(Schema):
    title: Title | None = None
    external_id: ExternalId | None = Field(
        default=None, description="Your own key for the issue, unique among the project's"
    )
    description: str | None = Field(default=None, max_length=20000)
    status: Status | None = None
    priority: Priority | None = None
    issue_kind: IssueKind | None = None
    assignee_id: Ref | None = None
    due_date: CalendarDay | None = None
    location: str | None = Field(default=None, max_length=500)
    file_id: Ref | None = None
    file_version_id: Ref | None = None
    page_number: PageNumber | None = None
    pin: Pin | None = None
    asset_id: Ref | None = None
    work_order_type: WorkOrderType | None = None
    maintenance_schedule_id: Ref | None = None
    checklist: list[ChecklistItem] | None = Field(default=None, max_length=200)


class IssueCreate(_IssueFields):
    title: Title
    status: Status = "OPEN"
    priority: Priority = "MEDIUM"
    issue_kind: IssueKind = "CONSTRUCTION"
    checklist: list[ChecklistItem] = Field(default_factory=list, max_length=200)


class IssueUpdate(_IssueFields, Patch):
    """Only the fields present in the body change; nullable fields may be cleared with null."""

    not_null = ("title", "status", "priority", "issue_kind", "checklist")


class IssueRecord(IssueCreate):
    """A record of a bulk upsert: the create body with its (required) key. An existing issue
    with this key gets the fields sent, as a PATCH would."""

    external_id: ExternalId


class IssueBulk(Schema):
    records: list[Lenient[IssueRecord]] = Field(min_length=1, max_length=MAX_RECORDS)
    all_or_nothing: Flag = Field(
        default=False, description="Any refused record and nothing is written (400)"
    )


class ReferencePhoto(BaseModel):
    id: str
    fileName: str
    contentType: str
    sizeBytes: int
    createdAt: datetime
    createdBy: str | None
    url: str | None = Field(default=None, description="Read URL, valid for 15 minutes")


class PhotoUploadTarget(BaseModel):
    uploadUrl: str
    s3Key: str
    uploadId: str
    method: str
    headers: dict[str, str]
    expiresAt: datetime


class ChecklistItemRead(BaseModel):
    """A stored item: always whole, whatever the request left out."""

    id: str
    label: str
    done: bool


class CostTotals(BaseModel):
    """A work order's costs so far, summed from its cost lines (exact decimal strings in the
    project's currency): parts, labour, other and their total."""

    parts: str
    labour: str
    other: str
    total: str


class IssueRead(BaseModel):
    id: str
    projectId: str
    number: int
    externalId: str | None
    title: str
    description: str | None
    status: Status
    priority: Priority
    issueKind: IssueKind
    assigneeId: str | None
    dueDate: date | None
    location: str | None
    fileId: str | None
    fileVersionId: str | None
    pageNumber: int | None
    pin: PinRead | None
    assetId: str | None
    workOrderType: WorkOrderType | None
    maintenanceScheduleId: str | None
    checklist: list[ChecklistItemRead]
    costs: CostTotals | None = Field(
        description="A work order's or occupant request's cost totals "
        "(`/om/work-orders/{id}/costs` has the lines); null for a construction issue"
    )
    referencePhotos: list[ReferencePhoto]
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime
    statusChangedAt: datetime | None
    resolvedAt: datetime | None
    closedAt: datetime | None


class CommentCreate(Schema):
    body: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=10000)]


class IssueCommentRead(BaseModel):
    id: str
    issueId: str
    body: str
    authorId: str | None
    authorName: str
    createdAt: datetime


class IssuePhotoPresign(Schema):
    file_name: FileName
    content_type: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    size_bytes: ByteCount = Field(ge=1)


class IssuePhotoComplete(Schema):
    upload_id: Ref
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
