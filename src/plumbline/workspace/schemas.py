"""Request and response shapes of workspaces and their dashboard."""

from typing import Annotated

from pydantic import BeforeValidator, Field, StringConstraints

from plumbline.dashboard.schemas import IssueStatusCounts
from plumbline.kit.schema import Schema

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


def _lower(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


Slug = Annotated[
    str,
    BeforeValidator(_lower),
    StringConstraints(max_length=80, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$"),
]
Color = Annotated[str, StringConstraints(pattern=r"^#[0-9A-Fa-f]{6}$")]


class WorkspaceCreate(Schema):
    name: Name
    slug: Slug | None = Field(default=None, description="Derived from the name when omitted")


class WorkspaceUpdate(Schema):
    name: Name | None = None
    slug: Slug | None = None
    primary_color: Color | None = Field(default=None, description="#RRGGBB; null clears it")


class WorkspaceRead(Schema):
    id: str
    name: str
    slug: str
    logo: str | None
    primary_color: str | None
    plan: str
    subscription_status: str
    trial_ends_at: str | None
    storage_used_bytes: int
    storage_quota_bytes: int | None
    seats_used: int = Field(description="Internal members (externals use no seat)")
    seat_limit: int | None = Field(description="Seats of the plan; null: unlimited")
    created_at: str


class ProjectCounts(Schema):
    total: int
    by_stage: dict[str, int]


class MemberCounts(Schema):
    total: int
    internal: int
    external: int


class StorageUsage(Schema):
    used_bytes: int
    quota_bytes: int | None


class ActivityDay(Schema):
    day: str
    count: int


class WorkspaceIssueCounts(Schema):
    by_status: IssueStatusCounts


class WorkspaceDashboard(Schema):
    projects: ProjectCounts
    members: MemberCounts
    storage: StorageUsage
    issues: WorkspaceIssueCounts
    activity: list[ActivityDay]
