"""``/app/search``: global search and the command palette's answers. ``q`` finds the
workspace's projects by name or number and, in the project open, its issues by number or
title, through each domain's own visibility rule; the app's commands match by name. The
palette asks for ``{% block palette_results %}`` alone (its ``hx-target``); the header's search
box opens the whole page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Query, Request
from starlette.responses import Response

from plumbline.auth.deps import CurrentUser
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext, load_project
from plumbline.authz.workspace import WorkspaceContext, named_workspace_access
from plumbline.db import DB
from plumbline.errors import AppError
from plumbline.issue import lookup as issue_lookup
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.nav import project_links
from plumbline.pages.kit.shell import page, shell
from plumbline.project import lookup as project_lookup
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)
Text = Annotated[str, Query(max_length=200)]
Id = Annotated[str | None, Query(max_length=64)]


@dataclass(frozen=True)
class Hit:
    kind: str  # shown beside the label ("Issue", "Project", "Go to")
    label: str
    href: str


def _commands(workspace: WorkspaceContext | None, project: ProjectContext | None) -> list[Hit]:
    """What the palette can do from here, for this person."""
    go = _("Go to")
    hits: list[Hit] = []
    if project is not None:
        base = f"/app/projects/{project.project.id}"
        areas = {link.key: link for link in project_links(project)}
        if "issues" in areas and project.can(Permission.RECORDS_WRITE):
            hits.append(Hit(_("Command"), _("New issue"), f"{base}/issues/new"))
        hits += [Hit(go, link.label, link.href) for link in areas.values()]
    if workspace is not None:
        hits.append(Hit(go, _("All projects"), f"/app/workspaces/{workspace.workspace.id}"))
        if workspace.can(Permission.PROJECT_CREATE):
            path = f"/app/workspaces/{workspace.workspace.id}/projects/new"
            hits.append(Hit(_("Command"), _("New project"), path))
    hits += [
        Hit(go, _("Notifications"), "/app/notifications"),
        Hit(go, _("Keyboard shortcuts"), "/app/help/keys"),
        Hit(go, _("Your account"), "/account/"),
    ]
    return hits


async def _contexts(
    db: DB, principal: CurrentUser, workspace_id: str | None, project_id: str | None
) -> tuple[WorkspaceContext | None, ProjectContext | None]:
    """The workspace and project the search runs in, as the person may see them (a workspace or
    project they do not belong to is ignored: nothing is searched there)."""
    workspace = project = None
    try:
        if project_id:
            project = await load_project(db, principal, project_id)
            workspace_id = project.workspace.id
        if workspace_id:
            workspace = await named_workspace_access(
                db, principal, workspace_id, Permission.PROJECT_READ
            )
    except AppError:
        return None, None
    return workspace, project


@router.get("/app/search")
async def search(
    request: Request,
    principal: CurrentUser,
    db: DB,
    q: Text = "",
    workspace: Id = None,
    project: Id = None,
) -> Response:
    """Records and commands matching ``q``."""
    ws, pr = await _contexts(db, principal, workspace, project)
    text = q.strip()
    hits: list[Hit] = []
    if text and pr is not None and pr.can(Permission.RECORDS_READ):
        try:
            issues = await issue_lookup.find(db, pr, text)
        except AppError:  # issues not shared with this client, or the module is off
            issues = []
        base = f"/app/projects/{pr.project.id}/issues"
        hits += [
            Hit(_("Issue"), f"#{i['number']} {i['title']}", f"{base}/{i['id']}") for i in issues
        ]
    if text and ws is not None:
        for p in await project_lookup.find(db, ws, text):
            label = f"{p['projectNumber']} · {p['name']}" if p["projectNumber"] else p["name"]
            hits.append(Hit(_("Project"), label, f"/app/projects/{p['id']}"))
    folded = text.casefold()
    hits += [c for c in _commands(ws, pr) if folded in c.label.casefold()]
    layout = await shell(request, db, pr or ws or principal)
    return page(request, "search/results.html", layout, q=text, hits=hits)
