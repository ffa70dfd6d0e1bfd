"""Files and file versions: the project each file route resolves, and the drawing rule.

A CLIENT collaborator reads every file and version (content, read URLs, revisions, open, viewer
state, co-viewing) when the project's client visibility has ``showDrawings`` on, and writes
nothing (403). With it off, a single file or version is hidden from them (404) and the
project's file collections are refused (403), as records are (docs/decisions.md)."""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.deps import (
    api_key_header,
    current_user,
    principal_dependency,
    session_cookie,
    user_or_api_key,
)
from plumbline.auth.principal import Principal
from plumbline.authz import repository
from plumbline.authz.permissions import Permission, ProjectRole
from plumbline.authz.plans import Feature, gated
from plumbline.authz.project import ProjectContext, check_access, load_project, project_access
from plumbline.db import session_of
from plumbline.errors import Forbidden, NotFound
from plumbline.models import File, FileVersion

Owner = TypeVar("Owner", File, FileVersion)
FILE_NOT_FOUND = "File not found"
VERSION_NOT_FOUND = "File version not found"


def _scope(permission: Permission) -> tuple[str, bool]:
    """The API-key scope of a permission and whether a lapsed subscription refuses it (opening
    a file is a read even though it is a POST)."""
    read = permission == Permission.FILES_READ
    return ("files:read" if read else "files:write"), not read


def drawings_hidden(ctx: ProjectContext) -> bool:
    """True for a CLIENT collaborator of a project that does not show clients its drawings."""
    return (
        ctx.is_external
        and ctx.project_role == ProjectRole.CLIENT
        and not ctx.project.client_visibility.get("showDrawings")
    )


def can(ctx: ProjectContext, permission: Permission) -> bool:
    """The role's permission; a CLIENT also reads files while drawings are shown."""
    if ctx.can(permission):
        return True
    return (
        permission == Permission.FILES_READ
        and ctx.project_role == ProjectRole.CLIENT
        and not drawings_hidden(ctx)
    )


def require(ctx: ProjectContext, permission: Permission, *, hidden: str | None = None) -> None:
    """403 without ``permission``; with ``hidden`` (a single file or version) 404 first for a
    client the drawings are hidden from."""
    if hidden is not None and drawings_hidden(ctx):
        raise NotFound(hidden)
    if not can(ctx, permission):
        raise Forbidden()


def files_access(
    permission: Permission, *, single: bool = False
) -> Callable[..., Awaitable[ProjectContext]]:
    """``/projects/{projectId}/...`` file routes; ``single`` for those naming one file."""
    scope, write = _scope(permission)
    base = project_access(Permission.PROJECT_READ, scope=scope, module="files")

    async def dependency(ctx: Annotated[ProjectContext, Depends(base)]) -> ProjectContext:
        check_access(ctx, scope=None, module=None, feature=Feature.FILES, write=write)
        require(ctx, permission, hidden=FILE_NOT_FOUND if single else None)
        return ctx

    return gated(dependency, Feature.FILES)


async def named_project_access(
    db: AsyncSession, principal: Principal, project_id: str, permission: Permission
) -> ProjectContext:
    """For a ``/files/*`` route whose body names the project (uploads): checked in the order of
    ``project_access``: project (404, or 403 for a key of another project), scope, module,
    plan, permission."""
    scope, write = _scope(permission)
    ctx = await load_project(db, principal, project_id)
    check_access(ctx, scope=scope, module="files", feature=Feature.FILES, write=write)
    require(ctx, permission)
    return ctx


async def _owner_access(
    db: AsyncSession,
    principal: Principal,
    owner: Owner | None,
    permission: Permission,
    *,
    keys: bool,
    missing: str,
) -> tuple[Owner, ProjectContext]:
    """The project of a file or version: 404 when it is gone, in another workspace than the
    key's or in a project the user cannot see; 403 for a key of another project."""
    if owner is None or (
        principal.api_key is not None and principal.api_key.workspace_id != owner.workspace_id
    ):
        raise NotFound(missing)
    try:
        ctx = await load_project(db, principal, owner.project_id)
    except NotFound:
        raise NotFound(missing) from None
    scope, write = _scope(permission)
    check_access(
        ctx, scope=scope if keys else None, module="files", feature=Feature.FILES, write=write
    )
    require(ctx, permission, hidden=missing)
    return owner, ctx


@dataclass
class FileAccess:
    """A live file and the caller's access to its project."""

    file: File
    ctx: ProjectContext


@dataclass
class VersionAccess:
    """A live file version and the caller's access to its project."""

    version: FileVersion
    ctx: ProjectContext

    @property
    def user_id(self) -> str:
        return self.ctx.principal.require_user().id


def file_access(permission: Permission) -> Callable[..., Awaitable[FileAccess]]:
    """``/files/{fileId}/...`` routes: a session user or an API key."""

    @principal_dependency(session_cookie, api_key_header)
    async def dependency(request: Request, fileId: str) -> FileAccess:
        principal = await user_or_api_key(request)
        db = await session_of(request)
        found = await repository.live_file(db, fileId)
        file, ctx = await _owner_access(
            db, principal, found, permission, keys=True, missing=FILE_NOT_FOUND
        )
        return FileAccess(file, ctx)

    return gated(dependency, Feature.FILES)


def version_access(
    permission: Permission, *, keys: bool = False
) -> Callable[..., Awaitable[VersionAccess]]:
    """``/file-versions/{fileVersionId}/...`` and ``/files/{fileVersionId}/lock``: a session
    user, or also an API key when ``keys``."""

    async def dependency(request: Request, fileVersionId: str) -> VersionAccess:
        principal = await (user_or_api_key(request) if keys else current_user(request))
        db = await session_of(request)
        found = await repository.live_version(db, fileVersionId)
        version, ctx = await _owner_access(
            db, principal, found, permission, keys=keys, missing=VERSION_NOT_FOUND
        )
        return VersionAccess(version, ctx)

    schemes = (session_cookie, api_key_header) if keys else (session_cookie,)
    return gated(principal_dependency(*schemes)(dependency), Feature.FILES)
