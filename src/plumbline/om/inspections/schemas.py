"""Request and response shapes of inspection templates and runs (responses are built as
dicts; the models describe them in the OpenAPI)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, Strict, StringConstraints

from plumbline.kit.schema import Flag, Number, Patch, Schema
from plumbline.om.schema import WalkInstant

Frequency = Literal[
    "DAILY", "WEEKLY", "BIWEEKLY", "MONTHLY", "QUARTERLY", "SEMI_ANNUAL", "ANNUAL", "CUSTOM"
]
ItemType = Literal["CHECK", "PASS_FAIL", "TEXT", "NUMBER", "PHOTO"]
OnFail = Literal["NONE", "CREATE_WORK_ORDER"]
Outcome = Literal["PASS", "FAIL", "NA", "DONE"]
RunStatus = Literal["DRAFT", "COMPLETED"]
Ref = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
IntervalDays = Annotated[int, Strict(), Field(ge=1, le=3650)]
Text = Annotated[str, StringConstraints(max_length=5000)]
# A reading (temperature, pressure, hours): any sign, bounded like a meter value.
Reading = Annotated[Number, Field(ge=-1e14, le=1e14)]


class TemplateItem(Schema):
    id: Ref | None = None
    label: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
    type: ItemType = "PASS_FAIL"
    required: Flag = True
    on_fail: OnFail = "NONE"


def _unique_ids(items: list[TemplateItem] | None) -> list[TemplateItem] | None:
    ids = [item.id for item in items or [] if item.id is not None]
    if len(ids) != len(set(ids)):
        raise ValueError("item ids must be unique")
    return items


Items = Annotated[
    list[TemplateItem], Field(min_length=1, max_length=200), AfterValidator(_unique_ids)
]


class InspectionTemplateCreate(Schema):
    name: Name
    description: str | None = Field(default=None, max_length=5000)
    frequency: Frequency
    interval_days: IntervalDays | None = None
    next_due_at: WalkInstant | None = None
    items: Items


class InspectionTemplateUpdate(Patch):
    not_null = ("name", "frequency", "next_due_at", "items")
    name: Name | None = None
    description: str | None = Field(default=None, max_length=5000)
    frequency: Frequency | None = None
    interval_days: IntervalDays | None = None
    next_due_at: WalkInstant | None = None
    items: Items | None = None


class TemplateItemRead(BaseModel):
    id: str
    label: str
    type: ItemType
    required: bool
    onFail: OnFail


class InspectionTemplateRead(BaseModel):
    id: str
    projectId: str
    name: str
    description: str | None
    frequency: Frequency
    intervalDays: int | None
    nextDueAt: datetime
    items: list[TemplateItemRead]
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


class RunCreate(Schema):
    template_id: Ref
    asset_id: Ref | None = None
    assignee_id: Ref | None = None


class Result(Schema):
    item_id: Ref
    outcome: Outcome | None = None
    value: Text | Reading | None = None
    note: str | None = Field(default=None, max_length=5000)
    photo_upload_id: Ref | None = None


class RunUpdate(Patch):
    """Results are merged by ``itemId``: a result sent replaces that item's, others stay."""

    not_null = ("results",)
    results: list[Result] | None = Field(default=None, max_length=200)
    asset_id: Ref | None = None
    assignee_id: Ref | None = None
    signed_by: Name | None = None


class RunComplete(Schema):
    signed_by: Name | None = None


class ResultRead(BaseModel):
    itemId: str
    outcome: Outcome | None
    value: str | float | None
    note: str | None
    photoUploadId: str | None


class FollowUpRead(BaseModel):
    id: str
    number: int


class RunRead(BaseModel):
    id: str
    projectId: str
    templateId: str
    templateName: str
    assetId: str | None
    assigneeId: str | None
    status: RunStatus
    items: list[TemplateItemRead]
    results: list[ResultRead]
    signedBy: str | None
    completedAt: datetime | None
    completedBy: str | None
    failedCount: int
    followUpWorkOrders: list[FollowUpRead]
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


class RunPhoto(BaseModel):
    id: str
    fileName: str
    contentType: str
    sizeBytes: int
    createdAt: datetime
    createdBy: str | None
