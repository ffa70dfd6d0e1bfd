"""SSO configuration bodies and answers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, Field, StringConstraints

from plumbline.kit.schema import Flag, Schema

Domain = Annotated[
    str,
    BeforeValidator(lambda v: v.strip().lower() if isinstance(v, str) else v),
    StringConstraints(
        min_length=3,
        max_length=253,
        pattern=r"^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$",
    ),
]
GrantedRole = Literal["ADMIN", "MANAGER", "MEMBER"]


class SsoConfigPut(Schema):
    issuer: Annotated[str, StringConstraints(min_length=8, max_length=2048)]
    client_id: Annotated[str, StringConstraints(min_length=1, max_length=500)]
    client_secret: Annotated[str, StringConstraints(min_length=1, max_length=4000)] | None = Field(
        default=None, description="Required the first time; kept when left out afterwards"
    )
    domains: Annotated[list[Domain], Field(min_length=1, max_length=50)]
    required: Flag = False
    default_role: GrantedRole = "MEMBER"


class SsoDomainRead(BaseModel):
    domain: str
    verified: bool
    verifiedAt: str | None
    txtRecordName: str
    txtRecordValue: str


class SsoConfigRead(BaseModel):
    workspaceId: str
    issuer: str
    clientId: str
    domains: list[SsoDomainRead]
    required: bool
    defaultRole: str
    redirectUri: str
    signInUrl: str
    scimBaseUrl: str
    createdAt: str
    updatedAt: str


class ScimTokenCreate(Schema):
    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] | None = None


class ScimTokenCreated(BaseModel):
    id: str
    token: str
    name: str | None
    createdAt: str
