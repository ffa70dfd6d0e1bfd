"""The SCIM caller: a workspace's bearer token (``Authorization: Bearer <token>``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from fastapi import Request
from fastapi.security import APIKeyHeader
from sqlalchemy import select

from plumbline.auth.deps import principal_dependency, sent
from plumbline.authz.plans import Feature, gated, plan_has
from plumbline.db import session_of
from plumbline.kit import clock, crypto
from plumbline.models import ScimToken, Workspace
from plumbline.scim.errors import ScimError

scim_bearer = APIKeyHeader(name="Authorization", auto_error=False, scheme_name="ScimBearer")
LAST_USED_PRECISION = timedelta(minutes=1)


@dataclass(frozen=True)
class ScimCaller:
    token: ScimToken
    workspace: Workspace


async def _scim_caller(request: Request, workspaceId: str) -> ScimCaller:
    """401 for a missing, unknown or revoked token and for another workspace's (nothing tells
    them apart); 403 when the plan has no enterprise sign-in."""
    header = sent(request, scim_bearer) or ""
    scheme, _, raw = header.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        raise ScimError(401, "A bearer token is required")
    db = await session_of(request)
    row = (
        await db.execute(
            select(ScimToken, Workspace)
            .join(Workspace, Workspace.id == ScimToken.workspace_id)
            .where(ScimToken.token_hash == crypto.sha256_hex(raw.strip()))
        )
    ).first()
    if row is None or row[0].revoked_at is not None or row[1].id != workspaceId:
        raise ScimError(401, "Invalid or revoked token")
    token, workspace = row
    if workspace.deleted_at is not None:
        raise ScimError(401, "Invalid or revoked token")
    if not plan_has(workspace.plan, Feature.SSO):
        raise ScimError(403, "Provisioning needs the enterprise plan")
    now = clock.now()
    if token.last_used_at is None or token.last_used_at < now - LAST_USED_PRECISION:
        token.last_used_at = now
    request.state.caller = f"scim:{token.id}"
    return ScimCaller(token, workspace)


scim_caller = gated(principal_dependency(scim_bearer)(_scim_caller), Feature.SSO)
