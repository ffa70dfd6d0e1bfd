"""Project access: load a project within what the caller may see, then check what they may do.

Every route that touches a project, a file or a file version decides through here (files and
versions in ``authz.files``); the statements are in ``authz.repository``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.deps import (
    api_key_header,
    key_principal,
    principal_dependency,
    require_key_project,
    require_scope,
    sent,
    session_cookie,
    user_with,
)
from plumbline.auth.principal import Principal
from plumbline.authz import repository
from plumbline.authz.permissions import ROLE_PERMISSIONS, Permission, Permits, Role, permissions_for
from plumbline.authz.plans import Feature, gated, require_feature
from plumbline.db import session_of
from plumbline.errors import AppError, Forbidden, NotFound
from plumbline.kit import crypto
from plumbline.models import Membership, Project, Workspace

# What a key may do inside its scopes: the record work of a manager, never administration,
# and the project's webhooks (an integration registers its own receiver).
API_KEY_PERMISSIONS = (ROLE_PERMISSIONS[Role.MANAGER] - {Permission.PROJECT_CREATE}) | {
    Permission.WEBHOOKS_MANAGE
}

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
MODULES = tuple(MODULE_LABELS)
CLIENT_VISIBILITY = (
    "showIssues",
    "showRfis",
    "showPunch",
    "showFieldReports",
    "showDrawings",
    "showSchedule",
)


def module_enabled(project: Project, module: str) -> bool:
    return module_on(project.modules, project.operations_mode, module)


def module_on(modules: dict[str, Any], operations_mode: bool, module: str) -> bool:
    """A project's module switch, from its ``modules`` and ``operations_mode`` columns: the O&M
    modules follow operations mode unless switched on their own."""
    if module in modules:
        return bool(modules[module])
    if module in ("om", "occupantPortal"):
        return operations_mode
    return True


@dataclass
class ProjectContext(Permits):
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

    def require_module(self, module: str) -> None:
        if not module_enabled(self.project, module):
            raise Forbidden(
                f"{MODULE_LABELS[module]} is disabled for this project", code="MODULE_DISABLED"
            )


def _key_context(
    principal: Principal, project: Project | None, workspace: Workspace | None
) -> ProjectContext:
    if project is None or workspace is None:
        raise NotFound("Project not found")
    return ProjectContext(principal, project, workspace, None, None, False, API_KEY_PERMISSIONS)


def member_context(
    principal: Principal,
    project: Project | None,
    workspace: Workspace | None,
    membership: Membership | None,
    named: str | None,
    project_role: str | None,
) -> ProjectContext:
    """404 unless the user is a member of the workspace who may see the project: internal
    members see every project, unless restricted; externals and restricted members see only
    the projects naming them. Also for a user read from a row rather than a request (the owner
    of a calendar feed, ``authz.repository.with_member_access``)."""
    if project is None or workspace is None or membership is None:
        raise NotFound("Project not found")
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


async def load_project(db: AsyncSession, principal: Principal, project_id: str) -> ProjectContext:
    """The project as the caller sees it: 404 when absent or not visible to them."""
    if principal.api_key is not None:
        require_key_project(principal, project_id)
        row = await repository.key_access(db, project_id)
        return _key_context(principal, *(row or (None, None)))
    found = await repository.member_access(db, principal.require_user().id, project_id)
    return member_context(principal, *(found or (None, None, None, None, None)))


def check_access(
    ctx: ProjectContext,
    *,
    scope: str | None,
    module: str | None,
    feature: Feature | None,
    write: bool,
) -> None:
    """What follows the project's visibility, in this order: the key's scope, the module
    switch, the plan."""
    if scope is not None:
        require_scope(ctx.principal, scope)
    if module is not None:
        ctx.require_module(module)
    if feature is not None:
        require_feature(ctx.workspace, feature, write=write)


def project_access(
    permission: Permission,
    *,
    scope: str | None,
    module: str | None = None,
    feature: Feature | None = None,
    externals: Callable[[], AppError] | None = None,
) -> Callable[..., Awaitable[ProjectContext]]:
    """A route dependency: the caller (session or, when ``scope`` is set, an API key with it),
    the project from the path within what they can see, the module switch, the plan and the
    permission, checked in that order so a 403 never reveals what a 404 hides. ``externals``
    is the refusal of external collaborators on a route only the team may use, decided here
    (before the body is read) rather than in the service."""

    @principal_dependency(session_cookie, api_key_header)
    async def dependency(request: Request, projectId: str) -> ProjectContext:
        # The credential and the access are read in one statement, then checked in the order
        # of user_or_api_key and load_project.
        key = sent(request, api_key_header)
        if key and not sent(request, session_cookie):
            if scope is None:
                raise Forbidden("API keys cannot be used for this action", code="API_KEY_PROJECT")
            params = {"key_hash": crypto.sha256_hex(key), "project_id": projectId}
            db = await session_of(request)
            found = await repository.KEY_PROJECT.first(db, params)
            api_key, project, workspace = found or (None, None, None)
            principal = await key_principal(request, db, api_key)
            require_key_project(principal, projectId)
            ctx = _key_context(principal, project, workspace)
        else:
            principal, row = await user_with(
                request, repository.SESSION_ACCESS, {"project_id": projectId}, verified=True
            )
            _, _, project, workspace, membership, named, project_role = row
            ctx = member_context(principal, project, workspace, membership, named, project_role)
        write = request.method not in ("GET", "HEAD")
        check_access(ctx, scope=scope, module=module, feature=feature, write=write)
        ctx.require(permission)
        if externals is not None and ctx.is_external:
            raise externals()
        return ctx

    return gated(dependency, feature)
