"""Proposal requests (create, update), the list's filters and the analytics' answer."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Self

from fastapi import Depends, Query
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from plumbline.errors import InvalidField
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
from plumbline.proposal.status import STATUSES

MAX_ITEMS = 500

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
    """``validUntil`` left out (or null): valid for the template's ``validDays``, else for 30
    days, to the end of that day on the project's clock; the template's body and tax apply where
    the request does not say."""

    title: Title
    valid_until: Instant | None = Field(
        None,
        description="Left out or null: the end of the day, in the project's time zone, 30 days"
        " from today (a template's validDays instead, when it names them)",
    )
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


@dataclass(frozen=True)
class ProposalFilters:
    """``status`` (comma-separated), ``q`` (title, client or reference, case-insensitive),
    ``clientEmail`` (exact, case-insensitive); the page applies ``updatedSince``."""

    status: tuple[str, ...] = ()
    q: str | None = None
    client_email: str | None = None


def _statuses(raw: str | None) -> tuple[str, ...]:
    if raw is None:
        return ()
    values = tuple(dict.fromkeys(v.strip() for v in raw.split(",") if v.strip()))
    wrong = [v for v in values if v not in STATUSES]
    if wrong:
        raise InvalidField("status", f"must be one of {', '.join(STATUSES)}")
    return values


async def proposal_filters(
    status: Annotated[
        str | None,
        Query(max_length=200, description=f"One or more of {', '.join(STATUSES)}, comma-separated"),
    ] = None,
    q: Annotated[
        str | None,
        Query(max_length=200, description="Text in the title, the client or the reference"),
    ] = None,
    client_email: Annotated[
        str | None, Query(alias="clientEmail", max_length=400, description="The client's e-mail")
    ] = None,
) -> ProposalFilters:
    return ProposalFilters(
        status=_statuses(status),
        q=q.strip() or None if q else None,
        client_email=client_email.strip() or None if client_email else None,
    )


Filters = Annotated[ProposalFilters, Depends(proposal_filters)]
