"""The change feeds of a project and of a workspace's materials catalogue."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.authz.workspace import WorkspaceContext, workspace_access
from plumbline.db import DB
from plumbline.events import feed
from plumbline.events.schemas import ChangesPage, Limit, Since, Types
from plumbline.kit.responses import ORJSONResponse
from plumbline.openapi import errors
from plumbline.routing import make_router

router = make_router(tags=["changes"])
# The catalogue's feed is one of the materials routes (their plan gate, their tag).
materials_router = make_router(tags=["materials"])

# Any member of the project's own team, or a key with ``project:read``; which resources each
# reads follows its role, the key's other scopes, the modules and the plan (``feed``).
CanReadChanges = Annotated[
    ProjectContext, Depends(project_access(Permission.PROJECT_READ, scope="project:read"))
]
CanReadMaterialChanges = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.MATERIALS_READ, feature=Feature.MATERIALS_READ)),
]


@router.get(
    "/projects/{projectId}/changes",
    response_model=ChangesPage,
    responses=errors(400, 403, 410),
)
async def project_changes(
    ctx: CanReadChanges,
    db: DB,
    since: Since = None,
    types: Types = None,
    limit: Limit = feed.DEFAULT_LIMIT,
) -> ORJSONResponse:
    """What changed in the project since a cursor: records created or updated (as the API
    returned them) and deleted (tombstones), oldest change first, with the cursor to go on from."""
    asked = feed.parse_types(types, feed.PROJECT_RESOURCES)
    resources = feed.project_resources(ctx, asked)
    page = await feed.changes(db, ctx.project.id, since=since, resources=resources, limit=limit)
    return ORJSONResponse(page)


@materials_router.get(
    "/workspaces/{workspaceId}/materials/changes",
    response_model=ChangesPage,
    responses=errors(400, 410),
)
async def material_changes(
    ctx: CanReadMaterialChanges, db: DB, since: Since = None, limit: Limit = feed.DEFAULT_LIMIT
) -> ORJSONResponse:
    """What changed in the workspace's materials catalogue since a cursor (as the project feed)."""
    resources = list(feed.WORKSPACE_RESOURCES)
    page = await feed.changes(db, ctx.workspace.id, since=since, resources=resources, limit=limit)
    return ORJSONResponse(page)
