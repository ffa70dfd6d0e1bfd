"""Files and their versions: list, rename/move/tag, delete, open, read URLs and content.

Rename and disciplines: the file's uploader or FILES_MANAGE; move and delete: FILES_MANAGE.
Deletes are soft (rows keep ``deletedAt``), free the versions' bytes from the workspace's
storage and remove the stored objects after the commit. A version locked by another user
refuses deletion (409 LOCKED)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from fastapi import Request, Response
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_stamp, diff
from plumbline.authz.files import can, require
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import Forbidden, InvalidField, NotFound, found
from plumbline.events.readers import reader
from plumbline.file import repository, upload_repository
from plumbline.file.errors import FileLocked, NameTaken
from plumbline.file.objects import discard_after_commit
from plumbline.file.schemas import FileUpdate, VersionRead, answer
from plumbline.file.types import check_type, clean_name, normalize
from plumbline.kit import clock
from plumbline.kit.pagination import PageParams
from plumbline.kit.storage import get_storage
from plumbline.kit.storage.http import object_response
from plumbline.models import File, FileVersion, Folder
from plumbline.records import references
from plumbline.records.references import FOLDER
from plumbline.viewer.service import locks

READ_URL_TTL = timedelta(hours=1)


def file_dict(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "projectId": row.project_id,
        "folderId": row.folder_id,
        "name": row.name,
        "disciplines": list(row.disciplines or []),
        "version": row.current_version,
        "fileVersionId": row.latest_version_id,
        "sizeBytes": row.size_bytes,
        "contentType": row.content_type,
        "createdAt": clock.iso(row.created_at),
        "createdBy": row.created_by,
        "updatedAt": clock.iso(row.updated_at),
        "lastOpenedAt": clock.iso(row.last_opened_at),
    }


def opened_dict(file: File, version: FileVersion) -> dict[str, Any]:
    return {
        "fileId": file.id,
        "fileVersionId": version.id,
        "version": version.version,
        "name": file.name,
        "contentType": version.content_type,
        "sizeBytes": version.size_bytes,
    }


@reader("file")
async def files_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row.id: file_dict(row) for row in await repository.files_by_id(db, ids)}


@reader("file_version")
async def versions_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """A version as the file's revisions list it, with the file it belongs to."""
    return {
        v.id: answer(VersionRead, v) | {"fileId": v.file_id}
        for v in await repository.versions_by_id(db, ids)
    }


async def project_folder(db: AsyncSession, project_id: str, folder_id: str) -> Folder:
    """The project's folder, else 404 (another project's folder is not found either)."""
    return found(await repository.get_folder(db, project_id, folder_id), "Folder not found")


async def _refuse_locked(db: AsyncSession, ctx: ProjectContext, version_ids: Sequence[str]) -> None:
    lock = await locks.held_by_other(db, version_ids, ctx.user_id)
    if lock is not None:
        raise FileLocked(
            fileVersionId=lock.file_version_id,
            lockedBy=lock.locked_by,
            expiresAt=clock.iso(lock.expires_at),
        )


async def remove_files(uow: UnitOfWork, ctx: ProjectContext, file_ids: Sequence[str]) -> None:
    """Soft-delete whole files: their live versions' bytes are freed and objects removed."""
    if not file_ids:
        return
    db = uow.session
    versions = await repository.versions_of_files(db, file_ids)
    await _refuse_locked(db, ctx, [v.id for v in versions])
    await repository.soft_delete(
        db, file_ids=file_ids, version_ids=[v.id for v in versions], now=clock.now()
    )
    await upload_repository.free_storage(db, ctx.workspace.id, sum(v.size_bytes for v in versions))
    for file_id in file_ids:
        await audit_stamp(db, ctx, ("file", file_id), "file.deleted", "deletedAt", clock.now())
    discard_after_commit(uow, [v.storage_key for v in versions])


class FileService:
    async def list(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        *,
        folder_id: str | None,
        q: str | None,
        page: PageParams,
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Files with their latest version, newest first; ``folderId=root`` for the top
        level, no ``folderId`` for the whole project."""
        root = folder_id == "root"
        if folder_id is not None and not root:
            await project_folder(db, ctx.project.id, folder_id)
        rows = await repository.list_files(
            db,
            ctx.project.id,
            folder_id=None if root else folder_id,
            root=root,
            q=normalize(q) if q else None,
            page=page,
        )
        rows, headers = page.finish(rows)
        return [file_dict(r) for r in rows], headers

    async def _file(self, db: AsyncSession, ctx: ProjectContext, file_id: str) -> File:
        return found(
            await repository.get_project_file(db, ctx.project.id, file_id), "File not found"
        )

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, file_id: str, body: FileUpdate
    ) -> dict[str, Any]:
        """Rename and tag: the uploader or FILES_MANAGE; move: FILES_MANAGE. A name keeps an
        accepted extension and stays unique in its folder."""
        file = await self._file(db, ctx, file_id)
        before = {"name": file.name, "folderId": file.folder_id, "disciplines": file.disciplines}
        moving = "folder_id" in body.model_fields_set and body.folder_id != file.folder_id
        if moving:
            require(ctx, Permission.FILES_MANAGE)
            await references.require(db, ctx, FOLDER, "folderId", body.folder_id)
        if (body.name is not None or body.disciplines is not None) and not (
            can(ctx, Permission.FILES_MANAGE)
            or (ctx.user_id is not None and file.created_by == ctx.user_id)
        ):
            raise Forbidden("Only the file's uploader or a manager can rename or tag it")
        name = clean_name(body.name) if body.name is not None else file.name
        if body.name is not None and check_type(name, "").content_type is None:
            raise InvalidField(
                "name",
                "unsupported extension",
                error="The new name must keep an accepted file extension",
            )
        folder_id = body.folder_id if moving else file.folder_id
        normalized = normalize(name)
        if moving or normalized != file.normalized_name:
            same = await repository.find_by_name(db, ctx.project.id, folder_id, normalized)
            if same is not None and same.id != file.id:
                raise NameTaken(fileId=same.id)
        file.name, file.normalized_name, file.folder_id = name, normalized, folder_id
        if body.disciplines is not None:
            file.disciplines = list(dict.fromkeys(body.disciplines))
        file.updated_at = clock.now()
        await db.flush()
        await audit_change(
            db,
            ctx,
            ("file", file.id),
            "file.updated",
            diff(
                before,
                {"name": file.name, "folderId": file.folder_id, "disciplines": file.disciplines},
            ),
        )
        return file_dict(await repository.file_row(db, file.id))

    async def delete(
        self, uow: UnitOfWork, ctx: ProjectContext, file_id: str, version: int | None
    ) -> None:
        """The whole file, or one version (the only remaining version deletes the file)."""
        db = uow.session
        file = await self._file(db, ctx, file_id)
        if version is None:
            await remove_files(uow, ctx, [file.id])
            return
        versions = list(await repository.live_versions(db, file.id))
        target = found(
            next((v for v in versions if v.version == version), None), "Version not found"
        )
        if len(versions) == 1:
            await remove_files(uow, ctx, [file.id])
            return
        await _refuse_locked(db, ctx, [target.id])
        now = clock.now()
        await repository.soft_delete(db, file_ids=[], version_ids=[target.id], now=now)
        await upload_repository.free_storage(db, ctx.workspace.id, target.size_bytes)
        latest = next(v for v in versions if v.id != target.id)
        file.latest_version_id, file.current_version, file.updated_at = (
            latest.id,
            latest.version,
            now,
        )
        changes = {"fileVersionId": [target.id, None], "version": [version, None]}
        await audit_change(db, ctx, ("file", file.id), "file.version_deleted", changes)
        discard_after_commit(uow, [target.storage_key])

    async def _open(self, db: AsyncSession, file: File) -> dict[str, Any]:
        latest = found(await repository.get_version(db, file.id, None), "File has no versions")
        file.last_opened_at = clock.now()
        await db.flush()
        return opened_dict(file, latest)

    async def open_in_project(
        self, db: AsyncSession, ctx: ProjectContext, file_id: str
    ) -> dict[str, Any]:
        """Open a file of the project: its latest version, and the file marked as opened now."""
        return await self._open(db, await self._file(db, ctx, file_id))

    async def open(self, db: AsyncSession, file: File) -> dict[str, Any]:
        """Open a file the caller may read: its latest version, the file marked as opened."""
        return await self._open(db, file)

    async def _version(self, db: AsyncSession, file: File, version: int | None) -> FileVersion:
        return found(await repository.get_version(db, file.id, version), "Version not found")

    async def presign_read(
        self, db: AsyncSession, file: File, version: int | None
    ) -> dict[str, Any]:
        """A read URL for a version (the latest by default), valid for ``READ_URL_TTL``."""
        stored = await self._version(db, file, version)
        url = await get_storage().presign_get(
            stored.storage_key,
            expires_in=READ_URL_TTL,
            filename=file.name,
            content_type=stored.content_type,
        )
        return {"url": url, "expiresAt": clock.iso(clock.now() + READ_URL_TTL)}

    async def content(
        self,
        request: Request,
        db: AsyncSession,
        file: File,
        version: int | None,
    ) -> Response:
        """A version's bytes with ETag and Range support (404 when the stored object is gone)."""
        stored = await self._version(db, file, version)
        storage = get_storage()
        size = found(await storage.head(stored.storage_key), "The stored object is missing")
        return object_response(
            request,
            storage,
            stored.storage_key,
            size=size,
            content_type=stored.content_type,
            etag=f'"{stored.id}"',
            filename=file.name,
        )

    async def resolved_revision(self, db: AsyncSession, file: File) -> dict[str, Any]:
        """The file's latest live version and all its live versions, newest first."""
        versions = await repository.live_versions(db, file.id)
        if not versions:
            raise NotFound("File has no versions")
        return {
            "fileId": file.id,
            "fileVersionId": versions[0].id,
            "version": versions[0].version,
            "versions": [answer(VersionRead, v) for v in versions],
        }


files = FileService()
