"""``/app/projects/{projectId}``: the project's home (its numbers, what changed, quick
actions) and, for phones, every area of the project (``/more``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.responses import Response

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.dashboard import home as home_service
from plumbline.db import DB
from plumbline.pages.kit.shell import page, shell
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)
# Pages are for people: a session, never an API key (scope=None).
ProjectPage = Annotated[
    ProjectContext,
    Depends(project_access(Permission.PROJECT_READ, scope=None, feature=Feature.RECORDS)),
]


@router.get("/app/projects/{projectId}")
async def project_home(request: Request, ctx: ProjectPage, db: DB) -> Response:
    """The project at a glance; externals see their own records and their areas."""
    home = await home_service.project_home(db, ctx)
    return page(
        request,
        "projects/home.html",
        await shell(request, db, ctx),
        home=home,
        may_write=ctx.can(Permission.RECORDS_WRITE),
    )


@router.get("/app/projects/{projectId}/more")
async def project_areas(request: Request, ctx: ProjectPage, db: DB) -> Response:
    """Every area of the project (the phone's bottom bar holds only the first few)."""
    return page(request, "projects/more.html", await shell(request, db, ctx))
