"""Proposal template requests and responses."""

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field, Strict, StringConstraints

from plumbline.kit.schema import Patch, Percentage, Schema

# O&M inspection templates have models of the same names: the OpenAPI names these after the
# module they were first written in, kept so that the served description does not change.
OPENAPI_MODULE = "plumbline.proposal.schemas"
TemplateName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)
]
TemplateBody = Annotated[str, StringConstraints(max_length=20000)]
ValidDays = Annotated[int, Strict(), Field(ge=1, le=3650)]


class TemplateDefaults(Schema):
    """What a proposal created from the template takes when its request does not say."""

    tax_percent: Percentage | None = None
    valid_days: ValidDays | None = None


class TemplateCreate(Schema):
    __module__ = OPENAPI_MODULE
    name: TemplateName
    body: TemplateBody
    defaults: TemplateDefaults = Field(default_factory=TemplateDefaults)


class TemplateUpdate(Patch):
    """Only the fields sent apply; within ``defaults`` too (send null to clear one)."""

    __module__ = OPENAPI_MODULE
    not_null = ("name", "body", "defaults")
    name: TemplateName | None = None
    body: TemplateBody | None = None
    defaults: TemplateDefaults | None = None


class TemplateDefaultsRead(BaseModel):
    taxPercent: str | None
    validDays: int | None


class TemplateRead(BaseModel):
    __module__ = OPENAPI_MODULE
    id: str
    workspaceId: str
    name: str
    body: str
    defaults: TemplateDefaultsRead
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime
