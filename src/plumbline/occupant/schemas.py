"""The occupant portal's shapes: links (managed by the project's managers), what a link shows,
a request as submitted, and what its tracking page shows."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from plumbline.issue.schemas import IssuePhotoComplete, IssuePhotoPresign
from plumbline.kit.schema import EmailAddress, Instant, Schema, Title

Label = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
PersonName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Description = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=5000)
]
Location = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)]
Token = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class OccupantLinkCreate(Schema):
    label: Label
    asset_id: str | None = Field(None, max_length=64)
    expires_at: Instant | None = None


class OccupantLinkRead(BaseModel):
    id: str
    projectId: str
    label: str
    assetId: str | None
    expiresAt: datetime | None
    createdBy: str | None
    createdAt: datetime


class OccupantLinkCreated(OccupantLinkRead):
    token: str = Field(description="Shown once: the link's secret")
    url: str = Field(description="The portal address to print or put in a QR code")


class AssetBrief(BaseModel):
    id: str
    tag: str
    name: str
    location: str | None


class OccupantMeta(BaseModel):
    projectId: str
    projectName: str
    workspaceName: str
    headline: str
    asset: AssetBrief | None


class OccupantSubmit(Schema):
    title: Title
    description: Description
    reporter_name: PersonName
    reporter_email: EmailAddress
    location: Location | None = None


class Submitted(BaseModel):
    ok: bool
    issueId: str
    trackingUrl: str
    photoToken: str
    photoTokenExpiresAt: datetime


class OccupantPhotoPresign(IssuePhotoPresign):
    photo_token: Token


class OccupantPhotoComplete(IssuePhotoComplete):
    photo_token: Token


class RequestUpdate(BaseModel):
    at: datetime
    status: str


class TrackedRequest(BaseModel):
    title: str
    status: str
    submittedAt: datetime
    updates: list[RequestUpdate]
