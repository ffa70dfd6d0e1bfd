"""The lifecycle routes: send, resend, duplicate, revisions, comments, the client thread."""

from plumbline.db import DB, UoW
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.proposal.auth import CanReadProposals, CanWriteProposals
from plumbline.proposal.lifecycle.schemas import (
    CommentIn,
    MessageIn,
    ProposalCommentRead,
    ProposalMessageRead,
    ProposalRevisionRead,
    ProposalSent,
)
from plumbline.proposal.lifecycle.service import lifecycle
from plumbline.proposal.read import ProposalRead
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/proposals/{proposalId}", tags=["proposals"])


@router.post("/send", response_model=ProposalSent)
async def send_proposal(ctx: CanWriteProposals, uow: UoW, proposalId: str) -> ORJSONResponse:
    """Send a DRAFT or CHANGES_REQUESTED proposal: e-mails the client its link and the PDF,
    records a revision; the answer holds the client's link (shown this once)."""
    return ORJSONResponse(await lifecycle.send(uow, ctx, proposalId))


@router.post("/resend", response_model=ProposalSent)
async def resend_proposal(ctx: CanWriteProposals, uow: UoW, proposalId: str) -> ORJSONResponse:
    """E-mail a SENT or VIEWED proposal again with a new link (the previous link stops working)."""
    return ORJSONResponse(await lifecycle.resend(uow, ctx, proposalId))


@router.post("/duplicate", response_model=ProposalRead)
async def duplicate_proposal(ctx: CanWriteProposals, db: DB, proposalId: str) -> ORJSONResponse:
    """A new DRAFT copy ("... (copy)") with a new reference and the same items."""
    return ORJSONResponse(await lifecycle.duplicate(db, ctx, proposalId))


@router.get("/revisions", response_model=list[ProposalRevisionRead])
async def list_revisions(
    ctx: CanReadProposals, db: DB, proposalId: str, page: Page
) -> ORJSONResponse:
    """The proposal as it was at each send, newest first."""
    rows, headers = await lifecycle.revisions(db, ctx, proposalId, page)
    return ORJSONResponse(rows, headers=headers)


@router.get("/comments", response_model=list[ProposalCommentRead])
async def list_comments(
    ctx: CanReadProposals, db: DB, proposalId: str, page: Page
) -> ORJSONResponse:
    """Internal comments, newest first (never shown to the client)."""
    rows, headers = await lifecycle.comments(db, ctx, proposalId, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("/comments", response_model=ProposalCommentRead)
async def add_comment(
    ctx: CanWriteProposals, db: DB, proposalId: str, body: CommentIn
) -> ORJSONResponse:
    """Add an internal comment."""
    return ORJSONResponse(await lifecycle.add_comment(db, ctx, proposalId, body.body))


@router.get("/messages", response_model=list[ProposalMessageRead])
async def list_messages(
    ctx: CanReadProposals, db: DB, proposalId: str, page: Page
) -> ORJSONResponse:
    """The thread with the client, newest first."""
    rows, headers = await lifecycle.messages(db, ctx, proposalId, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("/messages", response_model=ProposalMessageRead)
async def post_message(
    ctx: CanWriteProposals, uow: UoW, proposalId: str, body: MessageIn
) -> ORJSONResponse:
    """Answer the client in the thread (while the proposal awaits the client's answer); the
    client is e-mailed the answer."""
    return ORJSONResponse(await lifecycle.post_message(uow, ctx, proposalId, body.body))
