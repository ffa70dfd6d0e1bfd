"""Occupant links (managers) and the portal they open: reporting, photos, tracking."""

from typing import Annotated

from fastapi import Query, Request, Response

from plumbline.db import DB, UoW
from plumbline.issue.schemas import PhotoUploadTarget, ReferencePhoto
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.occupant.auth import CanManageLinks, CanReadLinks, OccupantLinkToken, TrackingToken
from plumbline.occupant.labels import MEDIA_TYPES, ImageKind, Paper, image_response
from plumbline.occupant.labels import labels as label_service
from plumbline.occupant.schemas import (
    OccupantLinkCreate,
    OccupantLinkCreated,
    OccupantLinkRead,
    OccupantMeta,
    OccupantPhotoComplete,
    OccupantPhotoPresign,
    OccupantSubmit,
    Submitted,
    TrackedRequest,
)
from plumbline.occupant.service import occupants
from plumbline.openapi import errors
from plumbline.routing import make_router

# The links are O&M routes of the project; the portal answers anyone holding a token.
router = make_router(tags=["om"])
portal_router = make_router(tags=["occupant portal"])
LINKS = "/projects/{projectId}/om/occupant-links"
EXPIRED = errors(texts={410: "The link (or the photo token) has expired"})
QR_ERRORS = errors(
    404,
    409,
    410,
    texts={
        409: "The link was made before links had printable codes",
        410: "The link has expired",
    },
)


def _qr_responses(kind: ImageKind) -> dict[int | str, dict[str, object]]:
    binary = {"schema": {"type": "string", "format": "binary"}}
    return {
        200: {"content": {MEDIA_TYPES[kind]: binary}, "description": "The QR code"},
        304: {"description": "Not modified (If-None-Match)"},
        **QR_ERRORS,
    }


@router.get(LINKS, response_model=list[OccupantLinkRead])
async def list_links(ctx: CanReadLinks, db: DB, page: Page) -> ORJSONResponse:
    """The project's live occupant links, newest first (their tokens are never shown again)."""
    return ORJSONResponse.page(await occupants.list_links(db, ctx, page))


@router.post(LINKS, response_model=OccupantLinkCreated)
async def create_link(ctx: CanManageLinks, db: DB, body: OccupantLinkCreate) -> ORJSONResponse:
    """Make a reporting link (for a lobby poster or an asset's QR code); its token is shown once."""
    return ORJSONResponse(await occupants.create_link(db, ctx, body))


@router.get(
    LINKS + "/labels.pdf",
    response_class=Response,
    responses={
        200: {
            "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
            "description": "The label sheet",
        }
    },
)
async def link_labels(
    ctx: CanReadLinks,
    db: DB,
    paper: Annotated[Paper, Query(description="The paper size: A4 (default) or Letter")] = "A4",
) -> Response:
    """A printable sheet of the project's live links: twelve labels a page, each with the asset's
    name, tag, location and QR code (paper A4 or Letter)."""
    document = await label_service.sheet(db, ctx, paper)
    filename = f"occupant-labels-{paper.lower()}.pdf"
    headers = {"Content-Disposition": f'inline; filename="{filename}"'}
    return Response(document, media_type="application/pdf", headers=headers)


@router.get(LINKS + "/{linkId}/qr.png", response_class=Response, responses=_qr_responses("png"))
async def link_qr_png(ctx: CanReadLinks, db: DB, request: Request, linkId: str) -> Response:
    """The link's QR code as a PNG (10 px a module), encoding its occupant page's address."""
    image, filename = await label_service.qr(db, ctx, linkId, "png")
    return image_response(request, image, MEDIA_TYPES["png"], filename)


@router.get(LINKS + "/{linkId}/qr.svg", response_class=Response, responses=_qr_responses("svg"))
async def link_qr_svg(ctx: CanReadLinks, db: DB, request: Request, linkId: str) -> Response:
    """The link's QR code as an SVG (white background), encoding its occupant page's address."""
    image, filename = await label_service.qr(db, ctx, linkId, "svg")
    return image_response(request, image, MEDIA_TYPES["svg"], filename)


@router.delete(LINKS + "/{linkId}", response_model=Ok)
async def revoke_link(ctx: CanManageLinks, db: DB, linkId: str) -> ORJSONResponse:
    """Withdraw a link: it answers 404 from now on."""
    await occupants.revoke_link(db, ctx, linkId)
    return ORJSONResponse({"ok": True})


@portal_router.get("/occupant/{token}/meta", response_model=OccupantMeta, responses=EXPIRED)
async def portal_meta(principal: OccupantLinkToken, db: DB) -> ORJSONResponse:
    """What the reporting page shows: the building (project), its organisation, the asset."""
    return ORJSONResponse(await occupants.meta(db, principal))


@portal_router.post("/occupant/{token}/submit", response_model=Submitted, responses=EXPIRED)
async def submit_request(
    principal: OccupantLinkToken, uow: UoW, body: OccupantSubmit
) -> ORJSONResponse:
    """Report a problem: answers the request's id, its tracking link and a photo token (1 h)."""
    return ORJSONResponse(await occupants.submit(uow, principal, body))


@portal_router.post(
    "/occupant/{token}/issues/{issueId}/reference-photos/presign",
    response_model=PhotoUploadTarget,
    responses=EXPIRED,
)
async def presign_photo(
    principal: OccupantLinkToken, db: DB, issueId: str, body: OccupantPhotoPresign
) -> ORJSONResponse:
    """An upload target for a photo of the request (images, 15 MB, 12 per request)."""
    return ORJSONResponse(await occupants.presign_photo(db, principal, issueId, body))


@portal_router.post(
    "/occupant/{token}/issues/{issueId}/reference-photos/complete",
    response_model=ReferencePhoto,
    responses=EXPIRED,
)
async def complete_photo(
    principal: OccupantLinkToken, db: DB, issueId: str, body: OccupantPhotoComplete
) -> ORJSONResponse:
    """Record an uploaded photo of the request."""
    return ORJSONResponse(await occupants.complete_photo(db, principal, issueId, body))


@portal_router.get("/occupant/requests/{token}", response_model=TrackedRequest)
async def track_request(principal: TrackingToken, db: DB) -> ORJSONResponse:
    """Follow a request: its title, status, and when it changed."""
    return ORJSONResponse(await occupants.track(db, principal))
