"""Request and response shapes of members and invites."""

from typing import Annotated, Literal

from pydantic import Field, Strict, StringConstraints

from plumbline.kit.schema import EmailAddress, Schema

RoleName = Literal["SUPER_ADMIN", "ADMIN", "MANAGER", "MEMBER"]
InviteKind = Literal["INTERNAL", "CLIENT", "CONTRACTOR", "SUBCONTRACTOR"]
ExpiresInDays = Annotated[int, Strict(), Field(ge=1, le=90, description="1..90 days, default 14")]
ProjectIds = Annotated[
    list[Annotated[str, StringConstraints(max_length=64)]], Field(max_length=1000)
]


class MemberUpdate(Schema):
    role: RoleName


class ProjectAccessUpdate(Schema):
    project_ids: ProjectIds | None = Field(description="null: every project (unrestricted)")


class MemberRead(Schema):
    user_id: str
    name: str
    email: str
    role: str
    is_external: bool
    project_ids: list[str] | None
    joined_at: str


class InviteCreate(Schema):
    role: RoleName
    expires_in_days: ExpiresInDays = 14


class InviteRead(Schema):
    id: str
    role: str
    expires_at: str
    created_at: str
    url: str | None = Field(description="Only in the create response: the token is shown once")


class EmailInviteCreate(Schema):
    email: EmailAddress
    role: RoleName | None = None
    kind: InviteKind = "INTERNAL"
    project_ids: ProjectIds = Field(default_factory=list)
    expires_in_days: ExpiresInDays = 14


class EmailInviteUpdate(Schema):
    role: RoleName | None = None
    kind: InviteKind | None = None
    project_ids: ProjectIds | None = None
    expires_in_days: ExpiresInDays | None = None


class EmailInviteRead(Schema):
    id: str
    email: str
    role: str
    kind: str
    project_ids: list[str]
    expires_at: str
    accepted_at: str | None
    created_at: str
    last_sent_at: str
    send_count: int
