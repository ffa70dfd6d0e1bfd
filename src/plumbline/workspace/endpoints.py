"""``/workspaces``: create, read, update, delete, and the workspace dashboard."""

from plumbline.auth.deps import CurrentUser
from plumbline.authz.workspace import WorkspaceMember
from plumbline.db import DB
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.routing import make_router
from plumbline.workspace.auth import CanDeleteWorkspace, CanUpdateWorkspace
from plumbline.workspace.schemas import (
    WorkspaceCreate,
    WorkspaceDashboard,
    WorkspaceRead,
    WorkspaceUpdate,
)
from plumbline.workspace.service import workspace as workspace_service

router = make_router(tags=["workspaces"])


@router.post("/workspaces", response_model=WorkspaceRead)
async def create_workspace(body: WorkspaceCreate, principal: CurrentUser, db: DB) -> ORJSONResponse:
    """Create a workspace; the caller becomes its SUPER_ADMIN."""
    return ORJSONResponse(await workspace_service.create(db, principal, body))


@router.get("/workspaces/{workspaceId}", response_model=WorkspaceRead)
async def get_workspace(ctx: WorkspaceMember, db: DB) -> ORJSONResponse:
    """Read a workspace the caller belongs to: plan, subscription, seats and storage."""
    return ORJSONResponse(await workspace_service.read(db, ctx))


@router.patch("/workspaces/{workspaceId}", response_model=WorkspaceRead)
async def update_workspace(
    body: WorkspaceUpdate, ctx: CanUpdateWorkspace, db: DB
) -> ORJSONResponse:
    """Rename or re-brand a workspace (ADMIN, SUPER_ADMIN)."""
    return ORJSONResponse(await workspace_service.update(db, ctx, body))


@router.delete("/workspaces/{workspaceId}", response_model=Ok)
async def delete_workspace(ctx: CanDeleteWorkspace, db: DB) -> ORJSONResponse:
    """Delete a workspace (SUPER_ADMIN); it can be restored for 30 days."""
    await workspace_service.delete(db, ctx)
    return ORJSONResponse({"ok": True})


@router.get("/workspaces/{workspaceId}/dashboard", response_model=WorkspaceDashboard)
async def workspace_dashboard(ctx: WorkspaceMember, db: DB) -> ORJSONResponse:
    """Projects, members, storage and daily activity of the last 14 days."""
    return ORJSONResponse(await workspace_service.dashboard(db, ctx))
