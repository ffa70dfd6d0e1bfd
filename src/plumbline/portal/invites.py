"""``/invites/{token}`` and ``/email-invites/{token}``: preview and accept an invite."""

from plumbline.auth.deps import CurrentUserUnverified
from plumbline.db import DB
from plumbline.kit.responses import ORJSONResponse
from plumbline.member.invite_tokens import invite_tokens
from plumbline.openapi import errors
from plumbline.portal.auth import EmailInviteToken, InviteLinkToken
from plumbline.portal.invite_schemas import EmailInvitePreview, InviteAccepted, InvitePreview
from plumbline.routing import make_router

router = make_router(tags=["invites"])
EXPIRED = errors(texts={410: "The invite has expired"})


@router.get("/invites/{token}", response_model=InvitePreview, responses=EXPIRED)
async def preview_invite(principal: InviteLinkToken) -> ORJSONResponse:
    """What an invite link offers: the workspace and the role."""
    return ORJSONResponse(invite_tokens.preview_link(principal))


@router.post("/invites/{token}/accept", response_model=InviteAccepted, responses=EXPIRED)
async def accept_invite(token: str, principal: CurrentUserUnverified, db: DB) -> ORJSONResponse:
    """Join the workspace through an invite link (e-mail verification not required)."""
    return ORJSONResponse(await invite_tokens.accept_link(db, principal, token))


@router.get(
    "/email-invites/{token}",
    response_model=EmailInvitePreview,
    responses={**EXPIRED, **errors(texts={409: "The invite has already been accepted"})},
)
async def preview_email_invite(principal: EmailInviteToken) -> ORJSONResponse:
    """What an e-mail invite offers: the workspace, role, address and kind."""
    return ORJSONResponse(invite_tokens.preview_email(principal))


@router.post("/email-invites/{token}/accept", response_model=InviteAccepted, responses=EXPIRED)
async def accept_email_invite(
    token: str, principal: CurrentUserUnverified, db: DB
) -> ORJSONResponse:
    """Accept an e-mail invite as the invited address; this also verifies the e-mail."""
    return ORJSONResponse(await invite_tokens.accept_email(db, principal, token))
