"""Request and response shapes of the proposal lifecycle and the client portal."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from plumbline.kit.schema import Schema
from plumbline.proposal.schemas import DeclineReason, ProposalRead, ProposalStatus

# 200 KB of PNG is at most 273,068 base64 characters after the data URL's 22-character prefix.
MAX_SIGNATURE_BYTES = 200 * 1024
SIGNATURE_PREFIX = "data:image/png;base64,"
MAX_SIGNATURE_CHARS = len(SIGNATURE_PREFIX) + 4 * ((MAX_SIGNATURE_BYTES + 2) // 3)

Body = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=10000)]
SignerName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Comment = Annotated[str, StringConstraints(max_length=10000)]


class ProposalSent(ProposalRead):
    """The proposal after ``send``, with the client's link: shown this once (only a hash of
    its token is stored), so the sender can also pass it on themselves."""

    portalUrl: str


class RevisionRead(BaseModel):
    id: str
    proposalId: str
    number: int
    snapshot: dict[str, Any]
    createdBy: str | None
    createdAt: datetime


class CommentIn(Schema):
    body: Body


class CommentRead(BaseModel):
    id: str
    proposalId: str
    body: str
    createdBy: str | None
    createdAt: datetime


class MessageIn(Schema):
    body: Body


class MessageRead(BaseModel):
    id: str
    author: Literal["CLIENT", "CONTRACTOR"]
    authorName: str | None
    body: str
    createdAt: datetime


class AcceptIn(Schema):
    signer_name: SignerName
    signature: str | None = Field(None, max_length=MAX_SIGNATURE_CHARS)


class DeclineIn(Schema):
    reason: DeclineReason
    comment: Comment | None = None


class RequestChangesIn(Schema):
    comment: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=10000)
    ]


class PortalItem(BaseModel):
    name: str
    description: str | None
    quantity: str
    unit: str | None
    rate: str
    lineTotal: str


class PortalProposal(BaseModel):
    """What the client sees: the offer and its answer; no ids, creators or internal notes."""

    reference: str
    title: str
    status: ProposalStatus
    companyName: str
    projectName: str
    clientName: str | None
    clientEmail: str | None
    clientCompany: str | None
    validUntil: datetime
    currency: str
    coverLetter: str | None
    items: list[PortalItem]
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


class RemindersResult(BaseModel):
    ok: bool
    reminded: int
    expired: int
