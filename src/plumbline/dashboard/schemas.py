"""The project dashboard shape declared for the OpenAPI description."""

from __future__ import annotations

from pydantic import BaseModel, Field

from plumbline.audit.schemas import AuditLogRead
from plumbline.kit.schema import Schema

# Status counts are keyed by the status values themselves, so these models keep their field
# names on the wire instead of the camelCase aliases of ``Schema``.


class IssueStatusCounts(BaseModel):
    OPEN: int
    IN_PROGRESS: int
    RESOLVED: int
    CLOSED: int


class RfiStatusCounts(BaseModel):
    OPEN: int
    IN_REVIEW: int
    ANSWERED: int
    CLOSED: int


class PunchStatusCounts(BaseModel):
    OPEN: int
    IN_PROGRESS: int
    READY_FOR_REVIEW: int
    CLOSED: int


class DashboardProject(Schema):
    id: str
    name: str
    stage: str


class DashboardFiles(Schema):
    count: int
    storage_bytes: int


class IssueSection(Schema):
    by_status: IssueStatusCounts
    open_work_orders: int = Field(description="Work orders that are OPEN or IN_PROGRESS")
    overdue: int = Field(description="OPEN or IN_PROGRESS, due before today (UTC)")
    due_in_7_days: int = Field(description="OPEN or IN_PROGRESS, due today or in the next 7 days")


class RfiSection(Schema):
    by_status: RfiStatusCounts
    overdue: int = Field(description="OPEN or IN_REVIEW, due before today (UTC)")
    due_in_7_days: int = Field(description="OPEN or IN_REVIEW, due today or in the next 7 days")


class PunchSection(Schema):
    by_status: PunchStatusCounts
    overdue: int = Field(description="Not CLOSED, due before today (UTC)")
    due_in_7_days: int = Field(description="Not CLOSED, due today or in the next 7 days")


class ProposalSection(Schema):
    pending: int = Field(
        description="Sent (SENT or VIEWED) and still valid: waiting for the client's answer"
    )


class ProjectDashboardRead(Schema):
    """Record sections are null while their module is switched off for the project."""

    project: DashboardProject
    members: int
    files: DashboardFiles | None
    issues: IssueSection | None
    rfis: RfiSection | None
    punch: PunchSection | None
    proposals: ProposalSection | None
    overdue_items: int = Field(description="Overdue issues, RFIs and punch items together")
    items_due_in_7_days: int = Field(description="Issues, RFIs and punch items due within 7 days")
    activity: list[AuditLogRead]
