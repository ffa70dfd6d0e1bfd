"""``/app/projects/{projectId}/views``: saving a list's view under a name, and deleting one."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Request
from starlette.responses import RedirectResponse, Response

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext, project_access
from plumbline.db import DB
from plumbline.errors import AppError, NotFound
from plumbline.pages.kit import flash, posted, text
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.nav import AREAS
from plumbline.routing import make_router
from plumbline.saved_view.service import saved_views

router = make_router(tags=["pages"], include_in_schema=False)
SeesProject = Annotated[
    ProjectContext, Depends(project_access(Permission.PROJECT_READ, scope=None))
]
PageName = Annotated[str, Query(alias="page", max_length=40)]


def _list_path(ctx: ProjectContext, name: str) -> str:
    if name not in {area.key for area in AREAS}:
        raise NotFound("No such list")
    return f"/app/projects/{ctx.project.id}/{name}"


@router.post("/app/projects/{projectId}/views")
async def save_view(request: Request, ctx: SeesProject, db: DB, name: PageName) -> Response:
    """Save the list's current filters under a name; then show that view."""
    path = _list_path(ctx, name)
    form = await posted(request)
    query = text(form, "query")
    try:
        view = await saved_views.save(
            db, ctx, name, text(form, "name"), query, form.get("shared") == "1"
        )
    except AppError as exc:
        return flash(RedirectResponse(f"{path}?{query}", status_code=303), exc.message, "error")
    to = RedirectResponse(f"{path}?{view.query}", status_code=303)
    return flash(to, _("View “%(name)s” saved.", name=view.name))


@router.post("/app/projects/{projectId}/views/{viewId}/delete")
async def delete_view(
    request: Request, ctx: SeesProject, db: DB, viewId: str, name: PageName
) -> Response:
    """Delete one of one's own saved views."""
    path = _list_path(ctx, name)
    await posted(request)
    await saved_views.delete(db, ctx, viewId)
    return flash(RedirectResponse(path, status_code=303), _("View deleted."))
