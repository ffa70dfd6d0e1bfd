"""Project requests, and the response shapes declared for the OpenAPI description."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, Field, StringConstraints, field_validator

from plumbline.authz.project import CLIENT_VISIBILITY, MODULES
from plumbline.kit.schema import CalendarDay, Flag, Schema

Stage = Literal[
    "Planning",
    "Preconstruction",
    "Execution",
    "Closeout",
    "Handover",
    "Operations",
    "Completed",
    "On Hold",
]


def _timezone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError("must be an IANA time zone such as America/New_York") from None
    return value


Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Location = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
ProjectNumber = Annotated[str, StringConstraints(strip_whitespace=True, max_length=64)]
Timezone = Annotated[str, StringConstraints(max_length=64), AfterValidator(_timezone)]


class ProjectCreate(Schema):
    name: Name
    location: Location | None = None
    currency: Currency = "USD"
    stage: Stage = "Planning"
    start_date: CalendarDay | None = None
    end_date: CalendarDay | None = None
    project_number: ProjectNumber | None = None
    timezone: Timezone = "UTC"


class ProjectUpdate(Schema):
    """Only the fields sent change; ``null`` clears the optional ones."""

    name: Name | None = None
    location: Location | None = None
    currency: Currency | None = None
    stage: Stage | None = None
    start_date: CalendarDay | None = None
    end_date: CalendarDay | None = None
    project_number: ProjectNumber | None = None
    timezone: Timezone | None = None
    operations_mode: Flag | None = None


class ProjectSettingsUpdate(Schema):
    modules: dict[str, Flag] | None = None
    client_visibility: dict[str, Flag] | None = None
    operations_mode: Flag | None = None

    @field_validator("modules")
    @classmethod
    def _known_modules(cls, value: dict[str, bool] | None) -> dict[str, bool] | None:
        unknown = sorted(set(value or {}) - set(MODULES))
        if unknown:
            raise ValueError(f"unknown module {', '.join(unknown)}; known: {', '.join(MODULES)}")
        return value

    @field_validator("client_visibility")
    @classmethod
    def _known_flags(cls, value: dict[str, bool] | None) -> dict[str, bool] | None:
        unknown = sorted(set(value or {}) - set(CLIENT_VISIBILITY))
        if unknown:
            raise ValueError(
                f"unknown flag {', '.join(unknown)}; known: {', '.join(CLIENT_VISIBILITY)}"
            )
        return value


class ProjectRead(Schema):
    id: str
    workspace_id: str
    name: str
    stage: Stage
    location: str | None
    currency: str
    start_date: date | None
    end_date: date | None
    project_number: str | None
    timezone: str
    operations_mode: bool
    created_at: datetime
    updated_at: datetime


class ModulesRead(Schema):
    issues: bool
    rfi: bool
    punch: bool
    field_reports: bool
    proposals: bool
    schedule: bool
    files: bool
    om: bool
    occupant_portal: bool


class ClientVisibilityRead(Schema):
    show_issues: bool
    show_rfis: bool
    show_punch: bool
    show_field_reports: bool
    show_drawings: bool
    show_schedule: bool


class ProjectSessionRead(Schema):
    project_id: str
    workspace_id: str
    role: str | None
    project_role: str | None
    is_external: bool
    permissions: list[str]
    modules: ModulesRead
    client_visibility: ClientVisibilityRead
    plan: str


class ProjectSettingsRead(Schema):
    project_id: str
    operations_mode: bool
    modules: ModulesRead
    client_visibility: ClientVisibilityRead


class TeamMemberRead(Schema):
    user_id: str
    name: str
    email: str | None = Field(
        description="Null for an external collaborator reading the team, except their own"
    )
    role: str
    project_role: str | None
    is_external: bool
