"""A proposal's read shape, defined once: the response models, their columns and dicts.

The contractor's routes answer ``to_read``; the client's portal ``client_view``, a part of it."""

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, create_model
from pydantic.alias_generators import to_snake
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.events.readers import reader
from plumbline.kit import clock, money
from plumbline.kit.money import number_text
from plumbline.models import Project, Proposal, Workspace
from plumbline.proposal.document import letter
from plumbline.proposal.status import LIVE, ProposalStatus, shown
from plumbline.records.fields import Fields
from plumbline.records.repository import rows_by_id

ENTITY = "proposal"  # in the audit log
DeclineReason = Literal["PRICE_TOO_HIGH", "TIMING", "SCOPE", "OTHER_COMPANY", "OTHER"]


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


MONEY = ("subtotal", "workAmount", "taxAmount", "discount", "total")
PERCENT = ("workPricePercent", "taxPercent")
# The response, in order: every field is the column of the same name in snake case. The amounts
# are selected as their text and formatted by ``to_read`` ("0.00").
FIELDS = Fields(
    Proposal.__table__,
    {name: to_snake(name) for name in ProposalRead.model_fields},
    as_text=tuple(to_snake(name) for name in (*MONEY, *PERCENT)),
)

# What the client sees: the offer and its answer; no ids, creators or timestamps of ours.
OURS = ("id", "projectId", "materialId", "createdBy", "createdAt", "updatedAt")


def _for_the_client(
    model: type[BaseModel], replaced: dict[str, Any], after_status: dict[str, Any]
) -> dict[str, Any]:
    """The fields of ``model`` a client sees, in order, with their types as ``create_model``
    takes them: ``replaced`` ones retyped, ``after_status`` ones added after the status."""
    fields: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if name not in OURS:
            fields[name] = replaced.get(name, (field.annotation, ...))
        if name == "status":
            fields |= after_status
    return fields


PortalItem = create_model("PortalItem", **_for_the_client(ItemRead, {}, {}))
PortalProposal = create_model(
    "PortalProposal",
    __doc__="What the client sees: the offer and its answer; no ids, creators or internal notes.",
    **_for_the_client(
        ProposalRead,
        {"items": (list[PortalItem], ...)},
        {"companyName": (str, ...), "projectName": (str, ...)},
    ),
)
CLIENT_FIELDS = tuple(name for name in PortalProposal.model_fields if name in FIELDS.names)
ITEM_FIELDS = tuple(PortalItem.model_fields)


def percent_text(value: Decimal | str) -> str:
    """``number_text`` of a percentage, from a ``Decimal`` or a percent column's text:
    PostgreSQL's has its four places (``8.2500`` -> ``8.25``), SQLite's (a REAL's) may not."""
    if type(value) is str and value[-5:-4] == ".":
        text = value.rstrip("0")
        return text + "00" if text[-1] == "." else text + "0" if text[-2] == "." else text
    return number_text(Decimal(value))


def _shown(body: dict[str, Any], now: str | None) -> dict[str, Any]:
    """The status as shown at ``now`` and the amounts as text, from the columns' values
    (``Decimal``s, or their text: PostgreSQL's money text has its two places already)."""
    if body["status"] in LIVE:
        body["status"] = shown(
            body["status"], body["validUntil"], now or str(clock.iso(clock.now()))
        )
    for name in MONEY:
        value = body[name]
        if type(value) is not str or value[-3:-2] != ".":
            body[name] = money.text(Decimal(value))
    for name in PERCENT:
        body[name] = percent_text(body[name])
    return body


def to_read(values: Mapping[Any, Any], now: str | None = None) -> dict[str, Any]:
    """The contractor's read of a proposal (``FIELDS.of(entity)`` or a row's mapping)."""
    return _shown(FIELDS.read(values), now)


def row_read(row: Sequence[Any], now: str | None = None) -> dict[str, Any]:
    """``to_read`` of a row of ``FIELDS.columns`` (the list's, the events')."""
    return _shown(FIELDS.row(row), now)


@reader("proposal")
async def proposals_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row.id: row_read(row) for row in await rows_by_id(db, FIELDS, ids)}


def status_now(proposal: Proposal) -> str:
    """The proposal's status as reads show it (EXPIRED once ``validUntil`` passed)."""
    return str(to_read(FIELDS.of(proposal))["status"])


def client_view(proposal: Proposal, project: Project, workspace: Workspace) -> dict[str, Any]:
    """What the client sees: the offer with its letter filled in exactly as in the PDF they
    were sent (never the template with its ``{{variables}}``)."""
    full = to_read(FIELDS.of(proposal))
    view: dict[str, Any] = {name: full[name] for name in CLIENT_FIELDS}
    view["items"] = [{name: item.get(name) for name in ITEM_FIELDS} for item in full["items"]]
    view["coverLetter"] = letter.as_sent(
        full, project_name=project.name, company_name=workspace.name
    )
    return {"companyName": workspace.name, "projectName": project.name} | view
