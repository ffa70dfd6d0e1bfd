"""Project access: load a project within what the caller may see, then check what they may do."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request, Security
from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.deps import (
    api_key_header,
    principal_dependency,
    require_key_project,
    require_scope,
    session_cookie,
    user_or_api_key,
)
from plumbline.auth.principal import Principal
from plumbline.authz.permissions import ROLE_PERMISSIONS, Permission, Role, permissions_for
from plumbline.authz.plans import Feature, require_feature
from plumbline.db import get_db
from plumbline.errors import Forbidden, NotFound
from plumbline.models import Membership, Project, ProjectMember, Workspace

# What a key may do inside its scopes: the record work of a manager, never administration.
API_KEY_PERMISSIONS = ROLE_PERMISSIONS[Role.MANAGER] - {Permission.PROJECT_CREATE}

MODULES = (
    "issues",
    "rfi",
    "punch",
    "fieldReports",
    "proposals",
    "schedule",
    "files",
    "om",
    "occupantPortal",
)
MODULE_LABELS = {
    "issues": "Issues",
    "rfi": "RFIs",
    "punch": "Punch",
    "fieldReports": "Field reports",
    "proposals": "Proposals",
    "schedule": "Schedule",
    "files": "Files",
    "om": "Operations and maintenance",
    "occupantPortal": "Occupant portal",
}
CLIENT_VISIBILITY = ("showIssues", "showRfis", "showPunch", "showFieldReports", "showDrawings")


def module_enabled(project: Project, module: str) -> bool:
    if module in project.modules:
        return bool(project.modules[module])
    if module in ("om", "occupantPortal"):
        return project.operations_mode
    return True


@dataclass
class ProjectContext:
    """The caller's effective access to one project."""

    principal: Principal
    project: Project
    workspace: Workspace
    role: str | None
    project_role: str | None
    is_external: bool
    permissions: frozenset[Permission] = field(default_factory=frozenset)

    @property
    def user_id(self) -> str | None:
        return self.principal.user_id

    def can(self, permission: Permission) -> bool:
        return permission in self.permissions

    def require(self, permission: Permission) -> None:
        if permission not in self.permissions:
            raise Forbidden()

    def require_module(self, module: str) -> None:
        if not module_enabled(self.project, module):
            raise Forbidden(
                f"{MODULE_LABELS[module]} is disabled for this project", code="MODULE_DISABLED"
            )


async def load_project(db: AsyncSession, principal: Principal, project_id: str) -> ProjectContext:
    """The project as the caller sees it: 404 when absent or not visible to them."""
    if principal.api_key is not None:
        require_key_project(principal, project_id)
        row = (
            await db.execute(
                select(Project, Workspace)
                .join(Workspace, Workspace.id == Project.workspace_id)
                .where(
                    Project.id == project_id,
                    Project.deleted_at.is_(None),
                    Workspace.deleted_at.is_(None),
                )
            )
        ).first()
        if row is None:
            raise NotFound("Project not found")
        project, workspace = row.tuple()
        return ProjectContext(principal, project, workspace, None, None, False, API_KEY_PERMISSIONS)
    user_id = principal.user_id
    found = (
        await db.execute(
            select(Project, Workspace, Membership, ProjectMember.id, ProjectMember.project_role)
            .join(Workspace, Workspace.id == Project.workspace_id)
            .join(
                Membership,
                and_(
                    Membership.workspace_id == Project.workspace_id, Membership.user_id == user_id
                ),
            )
            .outerjoin(
                ProjectMember,
                and_(ProjectMember.project_id == Project.id, ProjectMember.user_id == user_id),
            )
            .where(
                Project.id == project_id,
                Project.deleted_at.is_(None),
                Workspace.deleted_at.is_(None),
            )
        )
    ).first()
    if found is None:
        raise NotFound("Project not found")
    project, workspace, membership, named, project_role = found.tuple()
    if (membership.is_external or membership.restricted) and named is None:
        raise NotFound("Project not found")
    permissions = permissions_for(membership.role, project_role, membership.is_external)
    return ProjectContext(
        principal,
        project,
        workspace,
        membership.role,
        project_role,
        membership.is_external,
        permissions,
    )


def project_access(
    permission: Permission,
    *,
    scope: str | None,
    module: str | None = None,
    feature: Feature | None = None,
) -> Callable[..., Awaitable[ProjectContext]]:
    """A route dependency: the caller (session or, when ``scope`` is set, an API key with it),
    the project from the path within what they can see, the module switch, the plan and the
    permission, checked in that order so a 403 never reveals what a 404 hides."""

    @principal_dependency
    async def dependency(
        request: Request,
        projectId: str,
        db: Annotated[AsyncSession, Depends(get_db)],
        cookie: Annotated[str | None, Security(session_cookie)] = None,
        key: Annotated[str | None, Security(api_key_header)] = None,
    ) -> ProjectContext:
        if scope is None and key and not cookie:
            raise Forbidden("API keys cannot be used for this action", code="API_KEY_PROJECT")
        principal = await user_or_api_key(request, db, cookie, key)
        ctx = await load_project(db, principal, projectId)
        if scope is not None:
            require_scope(principal, scope)
        if module is not None:
            ctx.require_module(module)
        if feature is not None:
            require_feature(ctx.workspace, feature, write=request.method not in ("GET", "HEAD"))
        ctx.require(permission)
        return ctx

    return dependency
