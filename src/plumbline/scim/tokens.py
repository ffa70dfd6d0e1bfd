"""``/workspaces/{workspaceId}/scim-tokens``: create (shown once, stored hashed), revoke."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_stamp, created
from plumbline.authz.workspace import WorkspaceContext
from plumbline.db import DB
from plumbline.errors import NotFound
from plumbline.kit import clock, crypto
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.models import ScimToken
from plumbline.openapi import errors
from plumbline.routing import make_router
from plumbline.sso.auth import CanConfigureSso
from plumbline.sso.schemas import ScimTokenCreate, ScimTokenCreated

TOKEN_PREFIX = "pscim_"  # noqa: S105 - a prefix, not a secret

router = make_router(prefix="/workspaces/{workspaceId}/scim-tokens", tags=["sso"])


async def create(db: AsyncSession, ctx: WorkspaceContext, name: str | None) -> dict[str, Any]:
    raw = f"{TOKEN_PREFIX}{crypto.random_token(32)}"
    now = clock.now()
    token = ScimToken(
        workspace_id=ctx.workspace.id,
        name=name,
        token_hash=crypto.sha256_hex(raw),
        created_by=ctx.user_id,
        created_at=now,
    )
    db.add(token)
    await db.flush()
    await audit_change(
        db, ctx, ("scim_token", token.id), "scim.token_created", created({"name": name})
    )
    return {"id": token.id, "token": raw, "name": name, "createdAt": clock.iso(now)}


async def revoke(db: AsyncSession, ctx: WorkspaceContext, token_id: str) -> None:
    token = (
        await db.execute(
            select(ScimToken).where(
                ScimToken.id == token_id, ScimToken.workspace_id == ctx.workspace.id
            )
        )
    ).scalar_one_or_none()
    if token is None or token.revoked_at is not None:
        raise NotFound("SCIM token not found")
    token.revoked_at = clock.now()
    await audit_stamp(
        db, ctx, ("scim_token", token.id), "scim.token_revoked", "revokedAt", token.revoked_at
    )


@router.post("", response_model=ScimTokenCreated, responses=errors(400))
async def create_scim_token(ctx: CanConfigureSso, db: DB, body: ScimTokenCreate) -> ORJSONResponse:
    """A bearer token for the identity provider's SCIM client; shown in this answer only."""
    return ORJSONResponse(await create(db, ctx, body.name))


@router.delete("/{tokenId}", response_model=Ok, responses=errors(404))
async def revoke_scim_token(ctx: CanConfigureSso, db: DB, tokenId: str) -> ORJSONResponse:
    """Revoke a SCIM token: the next request with it answers 401."""
    await revoke(db, ctx, tokenId)
    return ORJSONResponse({"ok": True})
