"""Workspace access: the caller's membership of the workspace in the path, then the permission."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import and_, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.deps import principal_dependency, session_cookie, user_with
from plumbline.auth.principal import Principal
from plumbline.auth.session import LIVE_SESSION
from plumbline.authz.permissions import Permission, Permits, permissions_for
from plumbline.authz.plans import Feature, gated, require_feature
from plumbline.errors import NotFound
from plumbline.models import Membership, User, Workspace
from plumbline.snapshots import Snapshots


@dataclass
class WorkspaceContext(Permits):
    principal: Principal
    workspace: Workspace
    membership: Membership
    permissions: frozenset[Permission]

    @property
    def user_id(self) -> str:
        return self.principal.require_user().id

    @property
    def role(self) -> str:
        return self.membership.role


# The session and its user with the live workspace ``workspace_id`` and the user's membership
# of it (None, None when either is missing).
SESSION_MEMBERSHIP = Snapshots(
    LIVE_SESSION.add_columns(Workspace, Membership)
    .outerjoin_from(
        User,
        Workspace,
        and_(Workspace.id == bindparam("workspace_id"), Workspace.deleted_at.is_(None)),
    )
    .outerjoin_from(
        Workspace,
        Membership,
        and_(Membership.workspace_id == Workspace.id, Membership.user_id == User.id),
    )
)


# The live workspace ``workspace_id`` and the membership of the user ``user_id``.
WORKSPACE_MEMBERSHIP = Snapshots(
    select(Workspace, Membership)
    .join(
        Membership,
        and_(
            Membership.workspace_id == Workspace.id,
            Membership.user_id == bindparam("user_id"),
        ),
    )
    .where(Workspace.id == bindparam("workspace_id"), Workspace.deleted_at.is_(None))
)


def _member_context(
    principal: Principal, workspace: Workspace | None, membership: Membership | None
) -> WorkspaceContext:
    if workspace is None or membership is None:
        raise NotFound("Workspace not found")
    # Externals hold no workspace-level permissions beyond seeing the workspace itself.
    permissions = (
        frozenset() if membership.is_external else permissions_for(membership.role, None, False)
    )
    return WorkspaceContext(principal, workspace, membership, permissions)


def workspace_access(
    permission: Permission | None, *, feature: Feature | None = None
) -> Callable[..., Awaitable[WorkspaceContext]]:
    """A route dependency for ``/workspaces/{workspaceId}/...``: a verified session user who is a
    member (404 otherwise), the plan's ``feature`` when given (402; a write also needs a live
    subscription), holding ``permission`` when given (403 otherwise)."""

    @principal_dependency(session_cookie)
    async def dependency(request: Request, workspaceId: str) -> WorkspaceContext:
        # The session and the membership in one statement (checked in that order).
        principal, row = await user_with(
            request, SESSION_MEMBERSHIP, {"workspace_id": workspaceId}, verified=True
        )
        _, _, workspace, membership = row
        ctx = _member_context(principal, workspace, membership)
        if feature is not None:
            require_feature(ctx.workspace, feature, write=request.method not in ("GET", "HEAD"))
        if permission is not None:
            ctx.require(permission)
        return ctx

    return gated(dependency, feature)


WorkspaceMember = Annotated[WorkspaceContext, Depends(workspace_access(None))]


async def named_workspace_access(
    db: AsyncSession, principal: Principal, workspace_id: str, permission: Permission
) -> WorkspaceContext:
    """For a route whose body names the workspace (billing): the caller's membership of the
    live workspace (404 otherwise), then ``permission`` (403)."""
    params = {"workspace_id": workspace_id, "user_id": principal.require_user().id}
    row = await WORKSPACE_MEMBERSHIP.first(db, params)
    ctx = _member_context(principal, *(row or (None, None)))
    ctx.require(permission)
    return ctx
