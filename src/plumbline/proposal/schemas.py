from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, Strict, StringConstraints, model_validator

from plumbline.kit.schema import (
    EmailAddress,
    Instant,
    Money,
    Patch,
    Percentage,
    Quantity,
    Schema,
    Title,
    one_of,
)

MAX_ITEMS = 500
ProposalStatus = Literal[
    "DRAFT", "SENT", "VIEWED", "ACCEPTED", "DECLINED", "CHANGES_REQUESTED", "EXPIRED"
]
DeclineReason = Literal["PRICE_TOO_HIGH", "TIMING", "SCOPE", "OTHER_COMPANY", "OTHER"]

Short = Annotated[str, StringConstraints(max_length=200)]
LongText = Annotated[str, StringConstraints(max_length=20000)]


class ItemIn(Schema):
    """With ``materialId``, the name, unit and rate not given are copied from the material."""

    model_config = ConfigDict(json_schema_extra=one_of(("name", "rate"), ("materialId",)))

    id: str | None = Field(None, max_length=64)
    name: Title | None = None
    description: LongText | None = None
    quantity: Quantity
    unit: Short | None = None
    rate: Quantity | None = None
    material_id: str | None = Field(None, max_length=64)

    @model_validator(mode="after")
    def _named_and_priced(self) -> Self:
        missing = [name for name in ("name", "rate") if getattr(self, name) is None]
        if self.material_id is None and missing:
            raise ValueError(f"{' and '.join(missing)} required unless materialId is given")
        return self


Items = Annotated[list[ItemIn], Field(max_length=MAX_ITEMS)]


class ProposalCreate(Schema):
    """``validUntil`` may be left out only with a ``templateId`` whose defaults name
    ``validDays``; the template's body and tax apply where the request does not say."""

    model_config = ConfigDict(json_schema_extra=one_of(("validUntil",), ("templateId",)))

    title: Title
    valid_until: Instant | None = None
    template_id: str | None = Field(None, max_length=64)
    client_name: Short | None = None
    client_email: EmailAddress | None = None
    client_company: Short | None = None
    cover_letter: LongText | None = None
    items: Items = Field(default_factory=list)
    work_price_percent: Percentage = Decimal(0)
    tax_percent: Percentage = Decimal(0)
    discount: Money = Decimal(0)


class ProposalUpdate(Patch):
    """Only the fields sent are applied; ``items`` replaces the whole list."""

    not_null = ("title", "valid_until", "items", "work_price_percent", "tax_percent", "discount")
    title: Title | None = None
    valid_until: Instant | None = None
    client_name: Short | None = None
    client_email: EmailAddress | None = None
    client_company: Short | None = None
    cover_letter: LongText | None = None
    items: Items | None = None
    work_price_percent: Percentage | None = None
    tax_percent: Percentage | None = None
    discount: Money | None = None


class ItemRead(BaseModel):
    id: str
    name: str
    description: str | None
    quantity: str
    unit: str | None
    rate: str
    lineTotal: str
    materialId: str | None


class ProposalRead(BaseModel):
    id: str
    projectId: str
    reference: str
    title: str
    status: ProposalStatus
    clientName: str | None
    clientEmail: str | None
    clientCompany: str | None
    validUntil: datetime
    currency: str
    coverLetter: str | None
    items: list[ItemRead]
    subtotal: str
    workPricePercent: str
    workAmount: str
    taxPercent: str
    taxAmount: str
    discount: str
    total: str
    sentAt: datetime | None
    viewedAt: datetime | None
    acceptedAt: datetime | None
    signerName: str | None
    declinedAt: datetime | None
    declineReason: DeclineReason | None
    declineComment: str | None
    changeRequestComment: str | None
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


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
    name: TemplateName
    body: TemplateBody
    defaults: TemplateDefaults = Field(default_factory=TemplateDefaults)


class TemplateUpdate(Patch):
    """Only the fields sent apply; within ``defaults`` too (send null to clear one)."""

    not_null = ("name", "body", "defaults")
    name: TemplateName | None = None
    body: TemplateBody | None = None
    defaults: TemplateDefaults | None = None


class TemplateDefaultsRead(BaseModel):
    taxPercent: str | None
    validDays: int | None


class TemplateRead(BaseModel):
    id: str
    workspaceId: str
    name: str
    body: str
    defaults: TemplateDefaultsRead
    createdBy: str | None
    createdAt: datetime
    updatedAt: datetime


class AnalyticsSummary(BaseModel):
    """The project's proposals in figures (docs/proposals.md defines each)."""

    total: int
    draft: int
    sent: int
    viewed: int
    accepted: int
    declined: int
    expired: int
    changesRequested: int
    pipelineValue: str
    acceptedValue: str
    winRate: float | None
    averageDaysToDecision: float | None
