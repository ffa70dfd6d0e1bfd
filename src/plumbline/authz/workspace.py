"""Workspace access: the caller's membership of the workspace in the path, then the permission."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request, Security
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.deps import current_user, principal_dependency, session_cookie
from plumbline.auth.principal import Principal
from plumbline.authz.permissions import Permission, permissions_for
from plumbline.db import get_db
from plumbline.errors import Forbidden, NotFound
from plumbline.models import Membership, Workspace


@dataclass
class WorkspaceContext:
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

    def can(self, permission: Permission) -> bool:
        return permission in self.permissions

    def require(self, permission: Permission) -> None:
        if permission not in self.permissions:
            raise Forbidden()


async def load_workspace(
    db: AsyncSession, principal: Principal, workspace_id: str
) -> WorkspaceContext:
    """The workspace if the caller is a member of it (404 otherwise, never 403)."""
    row = (
        await db.execute(
            select(Workspace, Membership)
            .join(Membership, Membership.workspace_id == Workspace.id)
            .where(
                Workspace.id == workspace_id,
                Workspace.deleted_at.is_(None),
                Membership.user_id == principal.user_id,
            )
        )
    ).first()
    if row is None:
        raise NotFound("Workspace not found")
    workspace, membership = row.tuple()
    # Externals hold no workspace-level permissions beyond seeing the workspace itself.
    permissions = (
        frozenset() if membership.is_external else permissions_for(membership.role, None, False)
    )
    return WorkspaceContext(principal, workspace, membership, permissions)


def workspace_access(permission: Permission | None) -> Callable[..., Awaitable[WorkspaceContext]]:
    """A route dependency for ``/workspaces/{workspaceId}/...``: a verified session user who is a
    member (404 otherwise), holding ``permission`` when given (403 otherwise)."""

    @principal_dependency
    async def dependency(
        request: Request,
        workspaceId: str,
        db: Annotated[AsyncSession, Depends(get_db)],
        cookie: Annotated[str | None, Security(session_cookie)] = None,
    ) -> WorkspaceContext:
        principal = await current_user(request, db, cookie)
        ctx = await load_workspace(db, principal, workspaceId)
        if permission is not None:
            ctx.require(permission)
        return ctx

    return dependency


WorkspaceMember = Annotated[WorkspaceContext, Depends(workspace_access(None))]
