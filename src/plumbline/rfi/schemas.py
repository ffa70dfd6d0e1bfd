"""Request shapes of the RFI routes, and the response shapes the OpenAPI documents."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator
from pydantic.alias_generators import to_camel

from plumbline.file.schemas import AttachmentRead, ContentType, FileName, Sha256, SizeBytes
from plumbline.kit.schema import CalendarDay, PageNumber, Pin, PinRead, Schema

Status = Literal["OPEN", "IN_REVIEW", "ANSWERED", "CLOSED"]
Priority = Literal["LOW", "MEDIUM", "HIGH"]
MAX_ASSIGNEES = 50
MAX_ISSUES = 100
MAX_MESSAGE_CHARS = 50_000


Id = Annotated[str, Field(min_length=1, max_length=64)]


class _RfiFields(Schema):
    question: str | None = Field(default=None, max_length=20_000)
    priority: Priority = "MEDIUM"
    due_date: CalendarDay | None = None
    assignee_ids: list[Id] = Field(default_factory=list, max_length=MAX_ASSIGNEES)
    manager_id: Id | None = None
    issue_ids: list[Id] = Field(default_factory=list, max_length=MAX_ISSUES)
    file_version_id: Id | None = None
    page_number: PageNumber | None = None
    pin: Pin | None = None

    @field_validator("assignee_ids", "issue_ids")
    @classmethod
    def _dedupe(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))


def _title(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("must not be blank")
    return value


# Shorter than the other records' titles (kit.schema.Title), and measured before stripping.
Title = Annotated[str, Field(max_length=300)]


class RfiCreate(_RfiFields):
    title: Title

    @field_validator("title")
    @classmethod
    def _check_title(cls, value: str) -> str:
        return _title(value)


# Fields that may be cleared with null; the others refuse it.
NULLABLE = frozenset(
    {"question", "due_date", "manager_id", "file_version_id", "page_number", "pin"}
)


class RfiUpdate(Schema):
    """Only the fields present are applied. ``status`` moves the RFI through its workflow;
    ``answerMessageId`` (with ``status: "ANSWERED"``) names the official response."""

    title: Title | None = None
    question: str | None = Field(default=None, max_length=20_000)
    status: Status | None = None
    priority: Priority | None = None
    due_date: CalendarDay | None = None
    assignee_ids: list[Id] | None = Field(default=None, max_length=MAX_ASSIGNEES)
    manager_id: Id | None = None
    issue_ids: list[Id] | None = Field(default=None, max_length=MAX_ISSUES)
    file_version_id: Id | None = None
    page_number: PageNumber | None = None
    pin: Pin | None = None
    answer_message_id: Id | None = None

    @field_validator("assignee_ids", "issue_ids")
    @classmethod
    def _dedupe(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else list(dict.fromkeys(value))

    @field_validator("title")
    @classmethod
    def _check_title(cls, value: str | None) -> str | None:
        return None if value is None else _title(value)

    def refused_nulls(self) -> list[str]:
        """Fields sent as null that cannot be cleared (camelCase, for the error details)."""
        return sorted(
            to_camel(name)
            for name in self.model_fields_set - NULLABLE - {"answer_message_id"}
            if getattr(self, name) is None
        )


class OfficialResponse(BaseModel):
    messageId: str
    body: str
    createdBy: str | None = None


class RfiRead(BaseModel):
    id: str
    projectId: str
    rfiNumber: int
    title: str
    question: str | None
    status: Status
    priority: Priority
    dueDate: date | None
    assigneeIds: list[str]
    managerId: str | None
    issueIds: list[str]
    fileVersionId: str | None
    pageNumber: int | None
    pin: PinRead | None
    officialResponse: OfficialResponse | None
    answeredAt: datetime | None
    answeredBy: str | None
    closedAt: datetime | None
    ballInCourt: list[str]
    attachments: list[AttachmentRead]
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


class AttachmentPresign(Schema):
    file_name: FileName
    content_type: ContentType = ""
    size_bytes: SizeBytes


class AttachmentComplete(Schema):
    upload_id: Id
    sha256: Sha256 | None = Field(default=None, description="Hex SHA-256 of the uploaded bytes")


class MessageCreate(Schema):
    body: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)


class RfiMessageRead(BaseModel):
    id: str
    rfiId: str
    projectId: str
    body: str
    createdBy: str | None
    authorName: str
    createdAt: datetime
    isOfficialResponse: bool
