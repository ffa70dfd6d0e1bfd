"""The app's layout around every signed-in page: who is signed in, their workspaces (the
switcher), the workspace and project open, the project's areas, the unread notifications.

A page handler gets its access context from the same dependencies as the JSON routes
(``CanReadIssues``...), then ``await shell(request, db, ctx)`` and passes it to ``page()``:
two statements, whatever the page."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import HTMLResponse, Response

from plumbline.auth.principal import Principal
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.authz.workspace import WorkspaceContext, named_workspace_access
from plumbline.identity import repository as identity_repo
from plumbline.kit import clock
from plumbline.models import Project, Workspace
from plumbline.notification.service import notification
from plumbline.pages.kit.brand import Brand
from plumbline.pages.kit.i18n import LANGUAGE_COOKIE, choose
from plumbline.pages.kit.nav import Link, project_links
from plumbline.pages.kit.respond import render

WORKSPACE_COOKIE = "plumbline_workspace"


@dataclass(frozen=True)
class Shell:
    user_id: str
    user_name: str
    user_email: str
    workspaces: list[Any]  # rows: id, name, slug, role
    workspace: Workspace | None
    role: str | None
    is_external: bool
    project: Project | None
    links: list[Link] = field(default_factory=list)
    unread: int = 0
    language: str | None = None
    now: datetime = field(default_factory=clock.now)

    @property
    def brand(self) -> Brand:
        return (
            Brand.of_workspace(self.workspace)
            if self.workspace
            else Brand.of("Plumbline", None, False, None)
        )

    @property
    def time_zone(self) -> str | None:
        return getattr(self.project, "time_zone", None) if self.project else None

    def may(self, ctx: ProjectContext | WorkspaceContext, permission: Any) -> bool:
        return bool(ctx.can(permission))


async def shell(
    request: Request,
    db: AsyncSession,
    ctx: ProjectContext | WorkspaceContext | Principal,
) -> Shell:
    """The layout's data for the person ``ctx`` names, in the project or workspace it holds;
    a page of the person's own (notifications, search) shows the workspace they last opened."""
    # The labels built here (the project's areas) speak the page's language, as render will.
    choose(request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language"))
    principal = ctx if isinstance(ctx, Principal) else ctx.principal
    user = principal.require_user()
    workspaces = list(await identity_repo.member_workspaces(db, user.id))
    last = request.cookies.get(WORKSPACE_COOKIE)
    if isinstance(ctx, Principal) and any(w.id == last for w in workspaces):
        ctx = await named_workspace_access(db, principal, last or "", Permission.PROJECT_READ)
    unread = await notification.unread(db, user.id)
    project = ctx.project if isinstance(ctx, ProjectContext) else None
    workspace = None if isinstance(ctx, Principal) else ctx.workspace
    role = None if isinstance(ctx, Principal) else ctx.role
    return Shell(
        user_id=user.id,
        user_name=user.name,
        user_email=user.email,
        workspaces=workspaces,
        workspace=workspace,
        role=role,
        is_external=_external(ctx),
        project=project,
        links=project_links(ctx) if isinstance(ctx, ProjectContext) else [],
        unread=unread,
        language=request.cookies.get(LANGUAGE_COOKIE),
    )


def _external(ctx: ProjectContext | WorkspaceContext | Principal) -> bool:
    if isinstance(ctx, ProjectContext):
        return ctx.is_external
    return isinstance(ctx, WorkspaceContext) and ctx.membership.is_external


def page(
    request: Request, template: str, shell: Shell, *, status: int = 200, **context: Any
) -> Response:
    """A signed-in page: ``template`` (extending ``app/layout.html``) in the shell, its URL
    kept to this site; remembers the workspace for the next visit to ``/``."""
    response: HTMLResponse = render(
        request,
        template,
        status=status,
        referrer="same-origin",
        shell=shell,
        brand=shell.brand,
        **context,
    )
    if shell.workspace is not None and request.cookies.get(WORKSPACE_COOKIE) != shell.workspace.id:
        response.set_cookie(
            WORKSPACE_COOKIE,
            shell.workspace.id,
            max_age=365 * 86400,
            path="/",
            httponly=True,
            samesite="lax",
        )
    return response
