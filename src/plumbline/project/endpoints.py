"""Project routes: CRUD, the session, settings, team and named access."""

from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.project.auth import (
    CanCreateProject,
    CanDeleteProject,
    CanManageProjectMembers,
    CanReadProject,
    CanUpdateProject,
    ProjectSession,
    WorkspaceMember,
)
from plumbline.project.schemas import (
    ProjectCreate,
    ProjectRead,
    ProjectSessionRead,
    ProjectSettingsRead,
    ProjectSettingsUpdate,
    ProjectUpdate,
    TeamMemberRead,
)
from plumbline.project.service import project as project_service
from plumbline.routing import make_router

router = make_router(tags=["projects"])


@router.get("/workspaces/{workspaceId}/projects", response_model=list[ProjectRead])
async def list_projects(ctx: WorkspaceMember, db: DB, page: Page) -> ORJSONResponse:
    """The workspace's projects the caller can see, newest first."""
    return ORJSONResponse.page(await project_service.list_visible(db, ctx, page))


@router.post("/workspaces/{workspaceId}/projects", response_model=ProjectRead)
async def create_project(ctx: CanCreateProject, db: DB, body: ProjectCreate) -> ORJSONResponse:
    """Create a project (MANAGER and above)."""
    return ORJSONResponse(await project_service.create(db, ctx, body))


@router.get("/projects/{projectId}", response_model=ProjectRead)
async def read_project(ctx: CanReadProject) -> ORJSONResponse:
    """One project."""
    return ORJSONResponse(project_service.read(ctx))


@router.patch("/projects/{projectId}", response_model=ProjectRead)
async def update_project(ctx: CanUpdateProject, db: DB, body: ProjectUpdate) -> ORJSONResponse:
    """Change the given fields of a project (MANAGER and above)."""
    return ORJSONResponse(await project_service.update(db, ctx, body))


@router.delete("/projects/{projectId}", response_model=Ok)
async def delete_project(ctx: CanDeleteProject, db: DB) -> ORJSONResponse:
    """Soft-delete a project (ADMIN and above)."""
    await project_service.delete(db, ctx)
    return ORJSONResponse({"ok": True})


@router.get("/projects/{projectId}/session", response_model=ProjectSessionRead)
async def project_session(ctx: ProjectSession) -> ORJSONResponse:
    """The caller's effective access to the project: role, permissions, modules, plan."""
    return ORJSONResponse(project_service.session(ctx))


@router.patch("/projects/{projectId}/settings", response_model=ProjectSettingsRead)
async def update_settings(
    ctx: CanUpdateProject, db: DB, body: ProjectSettingsUpdate
) -> ORJSONResponse:
    """Switch modules, client visibility flags and operations mode (MANAGER and above)."""
    return ORJSONResponse(await project_service.update_settings(db, ctx, body))


@router.get("/projects/{projectId}/team", response_model=list[TeamMemberRead])
async def project_team(ctx: CanReadProject, db: DB, page: Page) -> ORJSONResponse:
    """Everyone who can see the project, with e-mails and roles.

    An external collaborator (CLIENT, CONTRACTOR, SUBCONTRACTOR) sees only the internal members
    who can see the project, by name and role, and themselves: no e-mail but their own
    (`email` is null) and nothing of the other external collaborators."""
    return ORJSONResponse.page(await project_service.team(db, ctx, page))


@router.delete("/projects/{projectId}/members/{userId}", response_model=Ok)
async def remove_project_member(
    ctx: CanManageProjectMembers, db: DB, userId: str
) -> ORJSONResponse:
    """Remove a user's named access to the project (ADMIN and above)."""
    await project_service.remove_member(db, ctx, userId)
    return ORJSONResponse({"ok": True})
