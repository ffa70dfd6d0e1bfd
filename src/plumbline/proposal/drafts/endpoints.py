"""``/projects/{projectId}/proposals``: the contractor's proposals, their PDF and preview."""

from fastapi.responses import HTMLResponse, Response

from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.proposal.auth import CanReadProposals, CanWriteProposals
from plumbline.proposal.drafts.schemas import (
    AnalyticsSummary,
    Filters,
    ProposalCreate,
    ProposalUpdate,
)
from plumbline.proposal.drafts.service import proposal as proposal_service
from plumbline.proposal.read import ProposalRead
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/proposals", tags=["proposals"])


@router.get("", response_model=list[ProposalRead])
async def list_proposals(
    ctx: CanReadProposals, db: DB, filters: Filters, page: Page
) -> ORJSONResponse:
    """List the project's proposals, newest first (filters: status, q, clientEmail,
    updatedSince)."""
    rows, headers = await proposal_service.list_proposals(db, ctx, filters, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("", response_model=ProposalRead)
async def create_proposal(ctx: CanWriteProposals, db: DB, body: ProposalCreate) -> ORJSONResponse:
    """Create a DRAFT proposal (reference PROP-{year}-{seq}, currency from the project)."""
    return ORJSONResponse(await proposal_service.create(db, ctx, body))


@router.get("/analytics/summary", response_model=AnalyticsSummary)
async def proposal_analytics(ctx: CanReadProposals, db: DB) -> ORJSONResponse:
    """The project's proposals in figures: counts per status, pipeline and accepted value,
    win rate and the average days from sending to the client's decision."""
    return ORJSONResponse(await proposal_service.summary(db, ctx))


@router.get("/{proposalId}", response_model=ProposalRead)
async def get_proposal(ctx: CanReadProposals, db: DB, proposalId: str) -> ORJSONResponse:
    """One proposal."""
    return ORJSONResponse(await proposal_service.get(db, ctx, proposalId))


@router.get(
    "/{proposalId}/pdf",
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}, "description": "The proposal as PDF"}},
)
async def proposal_pdf(ctx: CanReadProposals, db: DB, proposalId: str) -> Response:
    """The proposal as a PDF: parties, letter, price table, totals, acceptance block."""
    document, filename = await proposal_service.pdf(db, ctx, proposalId)
    disposition = f'inline; filename="{filename}"'
    return Response(
        document, media_type="application/pdf", headers={"Content-Disposition": disposition}
    )


@router.post(
    "/{proposalId}/preview",
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": {"schema": {"type": "string"}}}}},
)
async def preview_proposal(ctx: CanWriteProposals, db: DB, proposalId: str) -> HTMLResponse:
    """The cover letter as HTML with the template variables filled in (values escaped)."""
    return HTMLResponse(await proposal_service.preview(db, ctx, proposalId))


@router.patch("/{proposalId}", response_model=ProposalRead)
async def update_proposal(
    ctx: CanWriteProposals, db: DB, proposalId: str, body: ProposalUpdate
) -> ORJSONResponse:
    """Update a DRAFT or CHANGES_REQUESTED proposal (only the fields sent; items as a whole)."""
    return ORJSONResponse(await proposal_service.update(db, ctx, proposalId, body))


@router.delete("/{proposalId}", response_model=Ok)
async def delete_proposal(ctx: CanWriteProposals, db: DB, proposalId: str) -> ORJSONResponse:
    """Delete a proposal (soft; members delete only their own drafts)."""
    await proposal_service.delete(db, ctx, proposalId)
    return ORJSONResponse({"ok": True})
