"""Who may do what with files.

Project routes use ``project_access``; the ``/files/*`` routes name their project in the body or
through the file, so they take ``UserOrApiKey`` and call ``file_context`` once the project is
known. Besides FILES_READ, a CLIENT collaborator reads files when the project's client
visibility has ``showDrawings`` on."""

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.deps import require_scope
from plumbline.auth.principal import Principal
from plumbline.authz.permissions import Permission, ProjectRole
from plumbline.authz.plans import Feature, require_feature
from plumbline.authz.project import ProjectContext, load_project, project_access
from plumbline.errors import Forbidden, NotFound
from plumbline.file import repository
from plumbline.models import File


def can(ctx: ProjectContext, permission: Permission) -> bool:
    if ctx.can(permission):
        return True
    return (
        permission == Permission.FILES_READ
        and ctx.project_role == ProjectRole.CLIENT
        and bool(ctx.project.client_visibility.get("showDrawings"))
    )


def require(ctx: ProjectContext, permission: Permission) -> None:
    if not can(ctx, permission):
        raise Forbidden()


def files_access(
    permission: Permission, *, scope: str, write: bool
) -> Callable[..., Awaitable[ProjectContext]]:
    """``/projects/{projectId}/...`` file routes; ``write`` decides whether a lapsed
    subscription refuses the call (opening a file is a read even though it is a POST)."""
    base = project_access(Permission.PROJECT_READ, scope=scope, module="files")

    async def dependency(ctx: Annotated[ProjectContext, Depends(base)]) -> ProjectContext:
        require_feature(ctx.workspace, Feature.FILES, write=write)
        require(ctx, permission)
        return ctx

    return dependency


async def file_context(
    db: AsyncSession,
    principal: Principal,
    project_id: str,
    permission: Permission,
    *,
    scope: str,
    write: bool,
) -> ProjectContext:
    """The caller's access to ``project_id`` for a ``/files/*`` route, checked in the order of
    ``project_access``: project (404, or 403 for a key of another project), scope, module,
    plan, permission."""
    ctx = await load_project(db, principal, project_id)
    require_scope(principal, scope)
    ctx.require_module("files")
    require_feature(ctx.workspace, Feature.FILES, write=write)
    require(ctx, permission)
    return ctx


async def load_file(
    db: AsyncSession,
    principal: Principal,
    file_id: str,
    permission: Permission,
    *,
    scope: str,
    write: bool,
) -> tuple[File, ProjectContext]:
    """A live file the caller may reach; files of other workspaces are 404, also for keys."""
    file = await repository.get_file(db, file_id)
    if file is None or (
        principal.api_key is not None and principal.api_key.workspace_id != file.workspace_id
    ):
        raise NotFound("File not found")
    ctx = await file_context(db, principal, file.project_id, permission, scope=scope, write=write)
    return file, ctx


CanReadFiles = Annotated[
    ProjectContext, Depends(files_access(Permission.FILES_READ, scope="files:read", write=False))
]
CanUploadFiles = Annotated[
    ProjectContext,
    Depends(files_access(Permission.FILES_UPLOAD, scope="files:write", write=True)),
]
CanManageFiles = Annotated[
    ProjectContext,
    Depends(files_access(Permission.FILES_MANAGE, scope="files:write", write=True)),
]
