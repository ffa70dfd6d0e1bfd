"""The portal's credential: the link's token, counted and resolved (``auth.public_token``).

The token is the only credential: 404 unknown (or replaced by a later send), 410 once
``validUntil`` has passed (answered proposals stay readable), 30 requests a minute per token."""

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.deps import identified, principal_dependency, public_caller
from plumbline.auth.principal import Principal, TokenGrant
from plumbline.auth.public_token import TokenPurpose, resolve_token
from plumbline.auth.session import on_response
from plumbline.db import session_of
from plumbline.kit import crypto, ratelimit
from plumbline.proposal.portal import repository
from plumbline.proposal.status import ANSWERED

ACTIONS_PER_MINUTE = 30


async def _grant(db: AsyncSession, token_hash: str) -> TokenGrant | None:
    found = await repository.by_token_hash(db, token_hash)
    if found is None:
        return None
    proposal, project, workspace = found
    return TokenGrant(
        purpose="proposal",
        token_hash=token_hash,
        workspace_id=workspace.id,
        project_id=project.id,
        subject_id=proposal.id,
        # An answered proposal stays readable by its client after the offer's validity.
        expires_at=None if proposal.status in ANSWERED else proposal.valid_until,
        rows=(proposal, project, workspace),
    )


PROPOSAL_LINK = TokenPurpose(
    "proposal",
    _grant,
    unknown=(
        "This proposal link does not exist or was replaced by a newer one, or the sender"
        " withdrew the proposal"
    ),
    expired="This proposal has expired",
)


@principal_dependency()
async def proposal_client(
    request: Request, token: str, _: Annotated[None, Depends(public_caller)]
) -> Principal:
    """The holder of a proposal link: counted against 30 requests a minute per token first
    (429 with ``Retry-After``), then resolved (404 unknown, 410 expired)."""
    verdict = await ratelimit.hit(
        f"proposal-portal:{crypto.sha256_hex(token)}", ACTIONS_PER_MINUTE, 60
    )
    if verdict.enforced:
        on_response(request, lambda response: response.headers.update(verdict.headers()))
    return identified(request, await resolve_token(await session_of(request), PROPOSAL_LINK, token))


ProposalClient = Annotated[Principal, Depends(proposal_client)]
