"""Proposal template requests and responses."""

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field, Strict, StringConstraints

from plumbline.kit.schema import Patch, Percentage, Schema

TemplateName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)
]
TemplateBody = Annotated[str, StringConstraints(max_length=20000)]
ValidDays = Annotated[int, Strict(), Field(ge=1, le=3650)]


class TemplateDefaults(Schema):
    """What a proposal created from the template takes when its request does not say."""

    tax_percent: Percentage | None = None
    valid_days: ValidDays | None = None


class ProposalTemplateCreate(Schema):
    name: TemplateName
    body: TemplateBody
    defaults: TemplateDefaults = Field(default_factory=TemplateDefaults)


class ProposalTemplateUpdate(Patch):
    """Only the fields sent apply; within ``defaults`` too (send null to clear one)."""

    not_null = ("name", "body", "defaults")
    name: TemplateName | None = None
    body: TemplateBody | None = None
    defaults: TemplateDefaults | None = None


class TemplateDefaultsRead(BaseModel):
    taxPercent: str | None
    validDays: int | None


class ProposalTemplateRead(BaseModel):
    id: str
    workspaceId: str
    name: str
    body: str
    defaults: TemplateDefaultsRead
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime
