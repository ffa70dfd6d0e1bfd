"""The proposal portal: the client's routes, authenticated by the link's token alone."""

from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.openapi import errors
from plumbline.proposal.lifecycle.schemas import MessageIn, ProposalMessageRead
from plumbline.proposal.portal.auth import ProposalClient
from plumbline.proposal.portal.schemas import AcceptIn, DeclineIn, RequestChangesIn
from plumbline.proposal.portal.service import portal
from plumbline.proposal.read import PortalProposal
from plumbline.routing import make_router

router = make_router(prefix="/public/proposals/{token}", tags=["proposal portal"])
EXPIRED = errors(texts={410: "The proposal has expired"})
ANSWERED = errors(
    texts={409: "The proposal cannot take this answer now", 410: "The proposal has expired"}
)


@router.get("", response_model=PortalProposal, responses=EXPIRED)
async def read_proposal(client: ProposalClient) -> ORJSONResponse:
    """The proposal as its client sees it."""
    return ORJSONResponse(portal.view(client))


@router.post("/view", response_model=PortalProposal, responses=EXPIRED)
async def view_proposal(client: ProposalClient, db: DB) -> ORJSONResponse:
    """Record the client's first view (SENT -> VIEWED; the sender is notified)."""
    return ORJSONResponse(await portal.viewed(db, client))


@router.post("/accept", response_model=PortalProposal, responses=ANSWERED)
async def accept_proposal(client: ProposalClient, db: DB, body: AcceptIn) -> ORJSONResponse:
    """Accept the proposal, signed by name and optionally with a drawn signature (PNG)."""
    return ORJSONResponse(await portal.accept(db, client, body.signer_name, body.signature))


@router.post("/decline", response_model=PortalProposal, responses=ANSWERED)
async def decline_proposal(client: ProposalClient, db: DB, body: DeclineIn) -> ORJSONResponse:
    """Decline the proposal with a reason."""
    return ORJSONResponse(await portal.decline(db, client, body.reason, body.comment))


@router.post("/request-changes", response_model=PortalProposal, responses=ANSWERED)
async def request_changes(client: ProposalClient, db: DB, body: RequestChangesIn) -> ORJSONResponse:
    """Send the proposal back to the contractor with what should change."""
    return ORJSONResponse(await portal.request_changes(db, client, body.comment))


@router.get("/messages", response_model=list[ProposalMessageRead], responses=EXPIRED)
async def list_messages(client: ProposalClient, db: DB, page: Page) -> ORJSONResponse:
    """The thread with the contractor, newest first."""
    rows, headers = await portal.messages(db, client, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("/messages", response_model=ProposalMessageRead, responses=ANSWERED)
async def post_message(client: ProposalClient, db: DB, body: MessageIn) -> ORJSONResponse:
    """Write to the contractor."""
    return ORJSONResponse(await portal.post_message(db, client, body.body))
