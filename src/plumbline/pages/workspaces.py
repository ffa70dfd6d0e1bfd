"""``/app/workspaces/...``: a new workspace (a new user's first step), the workspace home (its
projects and dashboard) and a new project."""

from __future__ import annotations

from typing import get_args

from fastapi import Request
from starlette.responses import RedirectResponse, Response

from plumbline.auth.deps import CurrentUser
from plumbline.authz.permissions import Permission
from plumbline.db import DB
from plumbline.errors import AppError
from plumbline.kit.pagination import Page
from plumbline.pages.kit import flash, posted, text
from plumbline.pages.kit.forms import Errors, field_errors, required, submission, validate
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.shell import page, shell
from plumbline.project.auth import CanCreateProject, WorkspaceMember
from plumbline.project.schemas import ProjectCreate, Stage
from plumbline.project.service import project as project_service
from plumbline.routing import make_router
from plumbline.workspace.schemas import WorkspaceCreate
from plumbline.workspace.service import workspace as workspace_service

router = make_router(tags=["pages"], include_in_schema=False)
STAGES = get_args(Stage)


@router.get("/app/workspaces/new")
async def new_workspace(request: Request, db: DB, principal: CurrentUser) -> Response:
    """The form that creates a workspace."""
    return page(
        request,
        "workspaces/new.html",
        await shell(request, db, principal),
        errors={},
        form={},
        submission=submission(),
    )


@router.post("/app/workspaces/new")
async def create_workspace(request: Request, db: DB, principal: CurrentUser) -> Response:
    """Create the workspace (its creator is its SUPER_ADMIN), then open it."""
    form = await posted(request)
    typed = {"name": text(form, "name")}
    body = validate(WorkspaceCreate, typed, required(name=_("Enter the workspace's name")))
    errors: Errors = body if isinstance(body, dict) else {}
    if not isinstance(body, dict):
        try:
            made = await workspace_service.create(db, principal, body)
        except AppError as exc:
            errors = field_errors(exc)
        else:
            to = RedirectResponse(f"/app/workspaces/{made['id']}", status_code=303)
            return flash(to, _("Workspace created. Add your first project."))
    return page(
        request,
        "workspaces/new.html",
        await shell(request, db, principal),
        status=400,
        errors=errors,
        form=typed,
        submission=text(form, "submission"),
    )


@router.get("/app/workspaces/{workspaceId}")
async def workspace_home(request: Request, ctx: WorkspaceMember, db: DB, page_: Page) -> Response:
    """The workspace's projects with their open and overdue items, and for its team the
    dashboard."""
    home = await workspace_service.home(db, ctx, page_)
    return page(
        request,
        "workspaces/home.html",
        await shell(request, db, ctx),
        home=home,
        may_create=ctx.can(Permission.PROJECT_CREATE),
    )


@router.get("/app/workspaces/{workspaceId}/projects/new")
async def new_project(request: Request, ctx: CanCreateProject, db: DB) -> Response:
    """The form that creates a project (MANAGER and above)."""
    return page(
        request,
        "workspaces/new_project.html",
        await shell(request, db, ctx),
        errors={},
        form={"stage": "Planning", "currency": "USD", "timezone": "UTC"},
        stages=STAGES,
        submission=submission(),
    )


@router.post("/app/workspaces/{workspaceId}/projects/new")
async def create_project(request: Request, ctx: CanCreateProject, db: DB) -> Response:
    """Create the project, then open its home."""
    form = await posted(request)
    names = (
        "name",
        "location",
        "stage",
        "startDate",
        "endDate",
        "projectNumber",
        "currency",
        "timezone",
    )
    typed = {name: text(form, name) for name in names}
    data = {k: v for k, v in typed.items() if v}
    body = validate(ProjectCreate, data, required(name=_("Enter the project's name")))
    errors: Errors = body if isinstance(body, dict) else {}
    if not isinstance(body, dict):
        try:
            made = await project_service.create(db, ctx, body)
        except AppError as exc:
            errors = field_errors(exc)
        else:
            to = RedirectResponse(f"/app/projects/{made['id']}", status_code=303)
            return flash(to, _("Project created."))
    return page(
        request,
        "workspaces/new_project.html",
        await shell(request, db, ctx),
        status=400,
        errors=errors,
        form=typed,
        stages=STAGES,
        submission=text(form, "submission"),
    )
