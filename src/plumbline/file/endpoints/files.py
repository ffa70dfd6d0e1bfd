"""File routes: list, rename/move/tag, delete, open, read URLs, content and resolved revision."""

from typing import Annotated

from fastapi import Query, Request, Response

from plumbline.db import DB, UoW
from plumbline.file.auth import (
    CanDeleteProjectFile,
    CanEditProjectFile,
    CanOpenProjectFile,
    CanReadFile,
    CanReadFiles,
)
from plumbline.file.endpoints import BINARY, errors
from plumbline.file.files import files as file_service
from plumbline.file.schemas import FileRead, FileUpdate, OpenedFile, ReadUrl, ResolvedRevision
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok, VersionNumber
from plumbline.routing import make_router

router = make_router(tags=["files"])

Version = Annotated[VersionNumber | None, Query(description="Version number (default: latest)")]


@router.get("/projects/{projectId}/files", response_model=list[FileRead])
async def list_files(
    ctx: CanReadFiles,
    db: DB,
    page: Page,
    folder_id: Annotated[
        str | None, Query(alias="folderId", description="A folder id, or root for the top level")
    ] = None,
    q: Annotated[str | None, Query(max_length=200, description="Text in the name")] = None,
) -> ORJSONResponse:
    """List files with their latest version, newest first."""
    rows, headers = await file_service.list(db, ctx, folder_id=folder_id, q=q, page=page)
    return ORJSONResponse(rows, headers=headers)


@router.patch(
    "/projects/{projectId}/files/{fileId}", response_model=FileRead, responses=errors(409)
)
async def update_file(
    fileId: str, body: FileUpdate, ctx: CanEditProjectFile, db: DB
) -> ORJSONResponse:
    """Rename a file, move it to another folder or set its disciplines."""
    return ORJSONResponse(await file_service.update(db, ctx, fileId, body))


@router.delete("/projects/{projectId}/files/{fileId}", response_model=Ok, responses=errors(409))
async def delete_file(
    fileId: str, ctx: CanDeleteProjectFile, uow: UoW, version: Version = None
) -> ORJSONResponse:
    """Delete a file, or one of its versions with ?version=N."""
    await file_service.delete(uow, ctx, fileId, version)
    return ORJSONResponse({"ok": True})


@router.post("/projects/{projectId}/files/{fileId}/open", response_model=OpenedFile)
async def open_project_file(fileId: str, ctx: CanOpenProjectFile, db: DB) -> ORJSONResponse:
    """Record that the file was opened and return its latest version."""
    return ORJSONResponse(await file_service.open_in_project(db, ctx, fileId))


@router.post("/files/{fileId}/open", response_model=OpenedFile)
async def open_file(access: CanReadFile, db: DB) -> ORJSONResponse:
    """Record that the file was opened and return its latest version."""
    return ORJSONResponse(await file_service.open(db, access.file))


@router.get("/files/{fileId}/presign-read", response_model=ReadUrl)
async def presign_read(access: CanReadFile, db: DB, version: Version = None) -> ORJSONResponse:
    """A short-lived URL to download a version's bytes (valid for one hour)."""
    return ORJSONResponse(await file_service.presign_read(db, access.file, version))


@router.get(
    "/files/{fileId}/content",
    response_class=Response,
    responses={
        200: {"content": BINARY, "description": "The version's bytes"},
        206: {"content": BINARY, "description": "The requested byte range"},
        304: {"description": "Not modified (If-None-Match)"},
        **errors(416),
    },
)
async def file_content(
    request: Request, access: CanReadFile, db: DB, version: Version = None
) -> Response:
    """Stream a version's bytes with ETag and HTTP Range support."""
    return await file_service.content(request, db, access.file, version)


@router.get("/files/{fileId}/resolved-revision", response_model=ResolvedRevision)
async def resolved_revision(access: CanReadFile, db: DB) -> ORJSONResponse:
    """The latest version of a file and all its versions, newest first."""
    return ORJSONResponse(await file_service.resolved_revision(db, access.file))
