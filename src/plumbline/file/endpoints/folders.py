"""``/projects/{projectId}/folders``: the folder tree and the standard structures."""

from typing import Annotated

from fastapi import Query

from plumbline.db import DB, UoW
from plumbline.file.auth import CanManageFiles, CanReadFiles, CanUploadFiles
from plumbline.file.endpoints import errors
from plumbline.file.folders import folders as folder_service
from plumbline.file.schemas import (
    ApplyStructure,
    FolderCreate,
    FolderRead,
    FolderUpdate,
    StructureApplied,
)
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.routing import make_router

router = make_router(tags=["files"])


@router.get("/projects/{projectId}/folders", response_model=list[FolderRead])
async def list_folders(
    ctx: CanReadFiles,
    db: DB,
    page: Page,
    parent_id: Annotated[
        str | None, Query(alias="parentId", description="Children of this folder; root: top")
    ] = None,
) -> ORJSONResponse:
    """List the project's folders (a flat tree with parentId), newest first."""
    rows, headers = await folder_service.list(db, ctx, parent_id, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("/projects/{projectId}/folders", response_model=FolderRead, responses=errors(409))
async def create_folder(body: FolderCreate, ctx: CanUploadFiles, db: DB) -> ORJSONResponse:
    """Create a folder, at the root or inside parentId."""
    return ORJSONResponse(await folder_service.create(db, ctx, body))


@router.post("/projects/{projectId}/folders/apply-structure", response_model=StructureApplied)
async def apply_structure(body: ApplyStructure, ctx: CanManageFiles, db: DB) -> ORJSONResponse:
    """Create a standard folder tree, keeping folders that already exist."""
    return ORJSONResponse(await folder_service.apply_structure(db, ctx, body))


@router.patch(
    "/projects/{projectId}/folders/{folderId}", response_model=FolderRead, responses=errors(409)
)
async def update_folder(
    folderId: str, body: FolderUpdate, ctx: CanUploadFiles, db: DB
) -> ORJSONResponse:
    """Rename a folder or move it under another parent (never into its own subtree)."""
    return ORJSONResponse(await folder_service.update(db, ctx, folderId, body))


@router.delete("/projects/{projectId}/folders/{folderId}", response_model=Ok, responses=errors(409))
async def delete_folder(
    folderId: str,
    ctx: CanManageFiles,
    uow: UoW,
    recursive: Annotated[bool, Query(description="Also delete subfolders and files")] = False,
) -> ORJSONResponse:
    """Delete an empty folder, or with recursive=true everything in it."""
    await folder_service.delete(uow, ctx, folderId, recursive=recursive)
    return ORJSONResponse({"ok": True})
