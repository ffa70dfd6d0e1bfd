"""Who reaches the occupant portal: the project's managers manage its links (MANAGER+, the
``occupantPortal`` module, the O&M plan); a link's token opens the portal while the link is live
and the project keeps its portal on; a request's tracking token opens its status page."""

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.principal import Principal, TokenGrant
from plumbline.auth.public_token import TokenPurpose, public_token
from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, module_enabled, project_access
from plumbline.kit import crypto
from plumbline.occupant import repository as repo

MODULE = "occupantPortal"


def link_token(link_id: str) -> str:
    """The token of the link ``link_id``: an HMAC of its id under the secret key, so that the
    server can print it again as a QR code while storing only its hash (docs/decisions.md)."""
    return crypto.sign(link_id, "occupant-link")


async def _link(db: AsyncSession, token_hash: str) -> TokenGrant | None:
    found = await repo.link_by_token_hash(db, token_hash)
    if found is None or not module_enabled(found[1], MODULE):
        return None  # a project that turned its portal off answers as a revoked link
    link, project, workspace = found
    return TokenGrant(
        purpose="occupant-link",
        token_hash=link.token_hash,
        workspace_id=workspace.id,
        project_id=project.id,
        subject_id=link.id,
        expires_at=link.expires_at,
        revoked_at=link.revoked_at,
        rows=(link, project, workspace),
    )


async def _request(db: AsyncSession, token_hash: str) -> TokenGrant | None:
    found = await repo.tracked(db, token_hash)
    if found is None:
        return None
    issue_id, project_id, *_, workspace_id = found
    return TokenGrant(
        purpose="occupant-request",
        token_hash=token_hash,  # found by this exact hash
        workspace_id=workspace_id,
        project_id=project_id,
        subject_id=issue_id,
        rows=tuple(found),
    )


OCCUPANT_LINK = TokenPurpose(
    "occupant-link",
    _link,
    unknown="This reporting link does not exist or was withdrawn",
    expired="This reporting link has expired",
)
OCCUPANT_REQUEST = TokenPurpose(
    "occupant-request", _request, unknown="No request follows this tracking link"
)

OccupantLinkToken = Annotated[Principal, Depends(public_token(OCCUPANT_LINK))]
TrackingToken = Annotated[Principal, Depends(public_token(OCCUPANT_REQUEST))]


def _links(scope: str) -> Callable[..., Awaitable[ProjectContext]]:
    return project_access(Permission.OM_SETUP, scope=scope, module=MODULE, feature=Feature.OM)


CanReadLinks = Annotated[ProjectContext, Depends(_links("om:read"))]
CanManageLinks = Annotated[ProjectContext, Depends(_links("om:write"))]
