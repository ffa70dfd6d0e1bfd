"""Shapes of the lifecycle: sent, revisions, comments, the thread (portal's too), reminders."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, StringConstraints

from plumbline.kit.schema import Schema
from plumbline.proposal.read import ProposalRead

Body = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=10000)]


class ProposalSent(ProposalRead):
    """The proposal after ``send``, with the client's link: shown this once (only a hash of
    its token is stored), so the sender can also pass it on themselves."""

    portalUrl: str


class ProposalRevisionRead(BaseModel):
    id: str
    proposalId: str
    number: int
    snapshot: dict[str, Any]
    createdBy: str | None
    createdAt: datetime


class CommentIn(Schema):
    body: Body


class ProposalCommentRead(BaseModel):
    id: str
    proposalId: str
    body: str
    createdBy: str | None
    createdAt: datetime


class MessageIn(Schema):
    body: Body


class ProposalMessageRead(BaseModel):
    id: str
    author: Literal["CLIENT", "CONTRACTOR"]
    authorName: str | None
    body: str
    createdAt: datetime


class RemindersResult(BaseModel):
    ok: bool
    reminded: int
    expired: int
