"""Public tokens: an opaque token in the path as the caller's only credential.

Used by the proposal portal, the occupant portal and invites. Only the token's SHA-256 is
stored; each purpose looks the hash up in its own table, and the dependency compares what it
found in constant time. Every answer of a ``{token}`` route is ``no-store`` and
``no-referrer``: the route class sets it from the path (``routing.UnitOfWorkRoute.handle``).
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.deps import identified, principal_dependency, public_caller
from plumbline.auth.principal import Principal, TokenGrant
from plumbline.db import session_of
from plumbline.errors import AppError, Conflict, Expired, NotFound
from plumbline.kit import clock, crypto

TokenLookup = Callable[[AsyncSession, str], Awaitable[TokenGrant | None]]


@dataclass(frozen=True)
class TokenPurpose:
    """One kind of public token: how its hash is looked up and how its refusals read."""

    name: str
    lookup: TokenLookup
    unknown: str = "This link does not exist or was revoked"
    expired: str = "This link has expired"
    used: str = "This link has already been used"


async def resolve_token(db: AsyncSession, purpose: TokenPurpose, token: str) -> Principal:
    """The principal of ``token``: 404 when unknown or revoked, 409 when a single-use token
    was used, 410 when expired."""
    token_hash = crypto.sha256_hex(token)
    grant = await purpose.lookup(db, token_hash)
    if grant is None or not crypto.constant_time_equals(grant.token_hash, token_hash):
        raise NotFound(purpose.unknown)
    refusal: AppError | None = None
    if grant.used_at is not None:
        refusal = Conflict(purpose.used)
    elif grant.revoked_at is not None:
        refusal = NotFound(purpose.unknown)
    elif grant.expires_at is not None and grant.expires_at <= clock.now():
        refusal = Expired(purpose.expired)
    if refusal is not None:
        # Out of the session, so the rollback leaves the rows readable by the refusal's page.
        for row in grant.rows:
            db.expunge(row)
        refusal.about = grant
        raise refusal
    return Principal(token=grant)


def public_token(purpose: TokenPurpose) -> Callable[..., Awaitable[Principal]]:
    """A route dependency for ``{token}`` routes of ``purpose``; the route counts as public
    (no session, no key), so the test of public routes lists it."""

    @principal_dependency()
    async def dependency(
        request: Request, token: str, _: Annotated[None, Depends(public_caller)]
    ) -> Principal:
        return identified(request, await resolve_token(await session_of(request), purpose, token))

    return dependency
