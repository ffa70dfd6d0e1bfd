"""The four-step upload: preview, presign, the client's PUT, complete.

An Upload row remembers what was presigned; completing it checks the stored object (exists,
declared size, optional SHA-256), counts the verified bytes against the workspace's storage in
one atomic UPDATE, and records a File (version 1) or a new FileVersion. The answer is kept on
the Upload, so completing twice returns the same thing. Any refusal records nothing, and a
stored object that can never be completed (wrong size or checksum, over quota, expired) is
deleted at once.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created
from plumbline.auth.principal import Principal
from plumbline.authz.files import named_project_access
from plumbline.authz.permissions import Permission
from plumbline.authz.plans import storage_quota
from plumbline.authz.project import ProjectContext
from plumbline.config import settings
from plumbline.errors import (
    Conflict,
    InvalidField,
    NotFound,
    PayloadTooLarge,
    UnsupportedMediaType,
)
from plumbline.file import repository, upload_repository
from plumbline.file.errors import (
    ChecksumMismatch,
    FileDeleted,
    SizeMismatch,
    StorageQuotaExceeded,
    UploadExpired,
    UploadMissing,
)
from plumbline.file.objects import discard
from plumbline.file.schemas import CompleteUpload, PresignUpload, UploadPreview
from plumbline.file.types import check_type, clean_name, near_key, normalize
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.storage import get_storage, safe_name
from plumbline.models import File, FileVersion, Upload, Workspace
from plumbline.records import references
from plumbline.records.references import FILE, FOLDER

UPLOAD_TTL = timedelta(hours=1)
PENDING, COMPLETED = "PENDING", "COMPLETED"
MAX_SUGGESTIONS = 5


# ---- shared by file uploads and record attachments


def quota_check(workspace: Workspace, size: int) -> None:
    """402 when ``size`` more bytes would exceed the plan's storage (billing on only)."""
    quota = storage_quota(workspace)
    if quota is not None and workspace.storage_used_bytes + size > quota:
        raise StorageQuotaExceeded(
            quotaBytes=quota, usedBytes=workspace.storage_used_bytes, requestedBytes=size
        )


def size_check(size: int, max_bytes: int) -> None:
    """An upload has bytes (400) and no more than ``max_bytes`` (413)."""
    if size <= 0:
        raise InvalidField("sizeBytes", "must be > 0", error="The file is empty")
    if size > max_bytes:
        raise PayloadTooLarge(f"Files are limited to {max_bytes} bytes", maxBytes=max_bytes)


async def start_upload(
    db: AsyncSession,
    *,
    principal: Principal | None,
    actor_user_id: str | None,
    workspace_id: str,
    project_id: str | None,
    purpose: str,
    key_prefix: str,
    file_name: str,
    content_type: str,
    size: int,
    folder_id: str | None = None,
    file_id: str | None = None,
    entity_type: str | None = None,
    entity_id: str | None = None,
) -> dict[str, Any]:
    """Record an Upload and presign its PUT; the upload target of the spec."""
    upload_id, now = new_id(), clock.now()
    key = f"{key_prefix}/{upload_id}/{safe_name(file_name)}"
    target = await get_storage().presign_put(
        key, content_type=content_type, size=size, expires_in=UPLOAD_TTL
    )
    db.add(
        Upload(
            id=upload_id,
            workspace_id=workspace_id,
            project_id=project_id,
            purpose=purpose,
            entity_type=entity_type,
            entity_id=entity_id,
            folder_id=folder_id,
            file_id=file_id,
            file_name=file_name,
            content_type=content_type,
            size_bytes=size,
            storage_key=key,
            status=PENDING,
            expires_at=now + UPLOAD_TTL,
            created_by=actor_user_id,
            created_key_id=principal.key_id if principal else None,
            created_at=now,
        )
    )
    await db.flush()
    return {
        "uploadUrl": target.url,
        "s3Key": key,
        "uploadId": upload_id,
        "method": target.method,
        "headers": target.headers,
        "expiresAt": clock.iso(now + UPLOAD_TTL),
    }


async def begin_completion(db: AsyncSession, upload: Upload) -> dict[str, Any] | None:
    """The stored answer when the upload was already completed; otherwise claim it (None)."""
    if upload.status == COMPLETED and upload.result is not None:
        return upload.result
    if not await upload_repository.claim_upload(db, upload.id):
        status, result = await upload_repository.upload_outcome(db, upload.id)
        if status == COMPLETED and result is not None:
            return result
        raise Conflict("This upload is being completed by another request", code="IN_PROGRESS")
    return None


async def verify_and_count(
    db: AsyncSession, upload: Upload, workspace: Workspace, sha256: str | None
) -> int:
    """Check the stored object and count its verified size; returns that size."""
    storage = get_storage()
    if clock.now() > upload.expires_at:
        await discard(upload.storage_key)
        raise UploadExpired()
    size = await storage.head(upload.storage_key)
    if size is None:
        raise UploadMissing()
    if size != upload.size_bytes:
        await discard(upload.storage_key)
        raise SizeMismatch(expectedBytes=upload.size_bytes, receivedBytes=size)
    if sha256 is not None and await storage.sha256(upload.storage_key) != sha256.lower():
        await discard(upload.storage_key)
        raise ChecksumMismatch()
    quota = storage_quota(workspace)
    if not await upload_repository.add_storage(db, workspace.id, size, quota):
        await discard(upload.storage_key)
        raise StorageQuotaExceeded(quotaBytes=quota, requestedBytes=size)
    return size


def finish(upload: Upload, result: dict[str, Any]) -> dict[str, Any]:
    """Keep the answer on the upload, so completing it again answers the same."""
    upload.status = COMPLETED
    upload.result = result
    upload.completed_at = clock.now()
    return result


def same_caller(upload: Upload, principal: Principal) -> bool:
    """Only the key, or the user without a key, that presigned an upload may complete it."""
    if principal.api_key is not None:
        return upload.created_key_id == principal.api_key.id
    return upload.created_key_id is None and upload.created_by == principal.user_id


# ---- file uploads


class UploadService:
    async def preview(
        self, db: AsyncSession, ctx: ProjectContext, body: UploadPreview
    ) -> dict[str, Any]:
        """Per file: allowed or why not, and whether it becomes a new file or a new version.
        Two queries whatever the number of files (the folder, its files)."""
        await references.require(db, ctx, FOLDER, "folderId", body.folder_id)
        existing = await repository.files_in_folder(db, ctx.project.id, body.folder_id)
        by_name = {row.normalized_name: row for row in existing}
        by_near: dict[str, list[Any]] = defaultdict(list)
        for row in existing:
            by_near[near_key(row.name)].append(row)
        quota = storage_quota(ctx.workspace)
        used = ctx.workspace.storage_used_bytes
        accepted_bytes = 0
        results = []
        for item in body.files:
            name = clean_name(item.file_name)
            check = check_type(name, item.content_type)
            reason, code = check.reason, "UNSUPPORTED_MEDIA_TYPE" if check.reason else None
            if reason is None and item.size_bytes <= 0:
                reason, code = "The file is empty", "VALIDATION_FAILED"
            elif reason is None and item.size_bytes > settings.max_upload_bytes:
                reason = f"Files are limited to {settings.max_upload_bytes} bytes"
                code = "PAYLOAD_TOO_LARGE"
            elif (
                reason is None
                and quota is not None
                and used + accepted_bytes + item.size_bytes > quota
            ):
                reason, code = (
                    "The workspace's storage quota would be exceeded",
                    "STORAGE_QUOTA_EXCEEDED",
                )
            if reason is None:
                accepted_bytes += item.size_bytes
            match = by_name.get(normalize(name))
            suggestions = [
                {"fileId": row.id, "name": row.name}
                for row in by_near.get(near_key(name), [])
                if match is None or row.id != match.id
            ][:MAX_SUGGESTIONS]
            results.append(
                {
                    "fileName": name,
                    "allowed": reason is None,
                    "reason": reason,
                    "code": code,
                    "action": "new_version" if match else "new_file",
                    "fileId": match.id if match else None,
                    "nextVersion": match.version_seq + 1 if match else None,
                    "contentType": check.content_type,
                    "suggestions": suggestions,
                }
            )
        return {
            "folderId": body.folder_id,
            "files": results,
            "totalBytes": accepted_bytes,
            "storageUsedBytes": used,
            "storageQuotaBytes": quota,
            "maxUploadBytes": settings.max_upload_bytes,
        }

    async def presign(
        self, db: AsyncSession, principal: Principal, body: PresignUpload
    ) -> dict[str, Any]:
        """Presign one upload of an accepted type and size into the project (a new file, or a new
        version of ``fileId``)."""
        ctx = await named_project_access(db, principal, body.project_id, Permission.FILES_UPLOAD)
        name = clean_name(body.file_name)
        if not name:
            raise InvalidField("fileName", "required", error="fileName is empty")
        check = check_type(name, body.content_type)
        if check.content_type is None:
            raise UnsupportedMediaType(check.reason)
        size_check(body.size_bytes, settings.max_upload_bytes)
        folder_id = body.folder_id
        if body.file_id is not None:
            file = await repository.get_project_file(db, ctx.project.id, body.file_id)
            if file is None:
                raise references.refused(FILE, "fileId")
            file_id, folder_id = file.id, file.folder_id
        else:
            await references.require(db, ctx, FOLDER, "folderId", folder_id)
            same = await repository.find_by_name(db, ctx.project.id, folder_id, normalize(name))
            file_id = same.id if same else new_id()
        quota_check(ctx.workspace, body.size_bytes)
        return await start_upload(
            db,
            principal=principal,
            actor_user_id=principal.user_id,
            workspace_id=ctx.workspace.id,
            project_id=ctx.project.id,
            purpose="file",
            key_prefix=f"ws/{ctx.workspace.id}/p/{ctx.project.id}/files/{file_id}",
            file_name=name,
            content_type=check.content_type,
            size=body.size_bytes,
            folder_id=folder_id,
            file_id=file_id,
        )

    async def complete(
        self, db: AsyncSession, principal: Principal, body: CompleteUpload
    ) -> dict[str, Any]:
        """Complete the caller's upload once (repeats answer the same); refusals record nothing."""
        upload = await upload_repository.get_upload(db, body.upload_id, "file")
        if upload is None or upload.project_id is None or not same_caller(upload, principal):
            raise NotFound("Upload not found")
        ctx = await named_project_access(db, principal, upload.project_id, Permission.FILES_UPLOAD)
        done = await begin_completion(db, upload)
        if done is not None:
            return done
        file = (
            await repository.get_file(db, upload.file_id, deleted=True) if upload.file_id else None
        )
        if file is not None and file.deleted_at is not None:
            await discard(upload.storage_key)
            raise FileDeleted()
        if (
            file is None
            and upload.folder_id is not None
            and (await repository.get_folder(db, ctx.project.id, upload.folder_id) is None)
        ):
            await discard(upload.storage_key)
            raise Conflict("The folder was deleted during the upload", code="FOLDER_DELETED")
        size = await verify_and_count(db, upload, ctx.workspace, body.sha256)
        now = clock.now()
        if file is None:
            # verify_and_count locked the workspace's storage row until commit, so two uploads
            # of one new name take turns: the second finds the first's file, as a new version.
            file = await repository.find_by_name(
                db, ctx.project.id, upload.folder_id, normalize(upload.file_name)
            )
        is_new = file is None
        if file is None:
            file = File(
                id=upload.file_id or new_id(),
                project_id=ctx.project.id,
                workspace_id=ctx.workspace.id,
                folder_id=upload.folder_id,
                name=upload.file_name,
                normalized_name=normalize(upload.file_name),
                disciplines=[],
                current_version=0,
                version_seq=1,
                created_by=principal.user_id,
                created_at=now,
                updated_at=now,
            )
            db.add(file)
            await db.flush()
            version = 1
        else:
            version = await repository.next_version(db, file.id)
        file_version = FileVersion(
            file_id=file.id,
            project_id=ctx.project.id,
            workspace_id=ctx.workspace.id,
            version=version,
            storage_key=upload.storage_key,
            size_bytes=size,
            content_type=upload.content_type,
            sha256=body.sha256,
            created_by=principal.user_id,
            created_at=now,
        )
        db.add(file_version)
        await db.flush()
        file.current_version = version
        file.latest_version_id = file_version.id
        file.updated_at = now
        result = {
            "id": file.id,
            "name": file.name,
            "version": version,
            "fileVersionId": file_version.id,
            "folderId": file.folder_id,
            "sizeBytes": size,
            "contentType": upload.content_type,
        }
        await audit_change(
            db,
            ctx,
            ("file", file.id),
            "file.uploaded" if is_new else "file.version_added",
            created(
                {
                    "fileVersionId": file_version.id,
                    "name": file.name,
                    "version": version,
                    "sizeBytes": size,
                    "sha256": body.sha256,
                }
            ),
        )
        return finish(upload, result)


upload = UploadService()
