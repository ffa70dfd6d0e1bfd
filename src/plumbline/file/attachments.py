"""Photos and documents attached to records, uploaded and counted as files are.

Issue and punch reference photos, RFI attachments, inspection runs... use the same presign /
PUT / complete sequence as files and count against the workspace's storage.

The calling domain authorises its own route (e.g. "may edit this RFI") and passes its limits;
this service checks type, size, count and quota, records the attachment and lists them.
``presign``/``complete`` take a ProjectContext; ``presign_as``/``complete_as`` take plain ids
for callers without one (the occupant portal, with ``actor_user_id=None``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, TypedDict, Unpack

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, created
from plumbline.auth.principal import Principal
from plumbline.authz.project import ProjectContext
from plumbline.config import settings
from plumbline.db import UnitOfWork
from plumbline.errors import InvalidField, NotFound, UnsupportedMediaType, ValidationFailed, found
from plumbline.file import upload_repository
from plumbline.file.errors import LimitReached
from plumbline.file.objects import discard, discard_after_commit
from plumbline.file.schemas import AttachmentRead, answer
from plumbline.file.types import check_type, clean_name, media_type
from plumbline.file.uploads import (
    begin_completion,
    finish,
    quota_check,
    size_check,
    start_upload,
    verify_and_count,
)
from plumbline.kit import clock
from plumbline.kit.storage import get_storage
from plumbline.models import Attachment, Upload, Workspace

READ_URL_TTL = timedelta(minutes=15)
_ENTITY_TYPE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
_ENTITY_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _check_entity(entity_type: str, entity_id: str) -> None:
    if not _ENTITY_TYPE.match(entity_type) or not _ENTITY_ID.match(entity_id):
        raise ValidationFailed("Invalid attachment target")


def _attachment_type(file_name: str, content_type: str, allowed: frozenset[str] | None) -> str:
    general = check_type(file_name, content_type)
    if allowed is None:
        if general.content_type is None:
            raise UnsupportedMediaType(general.reason)
        return general.content_type
    declared = media_type(content_type)
    if declared in allowed:
        return declared
    if general.content_type in allowed:
        return general.content_type
    raise UnsupportedMediaType(
        f"Attachments here must be one of: {', '.join(sorted(allowed))}",
        allowed=sorted(allowed),
    )


class Target(TypedDict):
    """What ``presign`` is asked for: the record, the file, and the caller's limits."""

    entity_type: str
    entity_id: str
    file_name: str
    content_type: str
    size_bytes: int
    allowed_types: frozenset[str] | None
    max_bytes: int
    max_count: int


class AttachmentService:
    async def presign(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        **target: Unpack[Target],
    ) -> dict[str, Any]:
        """An upload target for one attachment: 415 wrong type, 413 over ``max_bytes``,
        409 LIMIT_REACHED at ``max_count``, 402 over the storage quota."""
        return await self._presign(
            db, ctx.workspace, ctx.project.id, ctx.principal, ctx.user_id, **target
        )

    async def presign_as(
        self,
        db: AsyncSession,
        *,
        workspace_id: str,
        project_id: str | None,
        actor_user_id: str | None,
        **target: Unpack[Target],
    ) -> dict[str, Any]:
        """``presign`` for callers without a ProjectContext (public portals)."""
        workspace = found(
            await upload_repository.get_workspace(db, workspace_id), "Workspace not found"
        )
        return await self._presign(db, workspace, project_id, None, actor_user_id, **target)

    async def _presign(
        self,
        db: AsyncSession,
        workspace: Workspace,
        project_id: str | None,
        principal: Principal | None,
        actor_user_id: str | None,
        **target: Unpack[Target],
    ) -> dict[str, Any]:
        entity_type, entity_id = target["entity_type"], target["entity_id"]
        size_bytes, max_count = target["size_bytes"], target["max_count"]
        _check_entity(entity_type, entity_id)
        name = clean_name(target["file_name"])
        if not name:
            raise InvalidField("fileName", "required", error="fileName is empty")
        stored_type = _attachment_type(name, target["content_type"], target["allowed_types"])
        size_check(size_bytes, min(target["max_bytes"], settings.max_upload_bytes))
        if await upload_repository.count_attachments(db, entity_type, entity_id) >= max_count:
            raise LimitReached(f"At most {max_count} attachments are allowed", maxCount=max_count)
        quota_check(workspace, size_bytes)
        prefix = f"ws/{workspace.id}" + (f"/p/{project_id}" if project_id else "")
        return await start_upload(
            db,
            principal=principal,
            actor_user_id=actor_user_id,
            workspace_id=workspace.id,
            project_id=project_id,
            purpose="attachment",
            key_prefix=f"{prefix}/attachments/{entity_type}/{entity_id}",
            file_name=name,
            content_type=stored_type,
            size=size_bytes,
            entity_type=entity_type,
            entity_id=entity_id,
        )

    async def complete(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        *,
        entity_type: str,
        entity_id: str,
        upload_id: str,
        max_count: int,
        sha256: str | None = None,
    ) -> dict[str, Any]:
        """Record the uploaded attachment: same checks and idempotency as complete-upload, and
        409 LIMIT_REACHED when the record got ``max_count`` attachments since the presign."""
        upload = await self._upload(
            db, ctx.workspace.id, ctx.project.id, entity_type, entity_id, upload_id
        )
        if ctx.principal.api_key is not None:
            if upload.created_key_id != ctx.principal.api_key.id:
                raise NotFound("Upload not found")
        elif upload.created_by != ctx.user_id:
            raise NotFound("Upload not found")
        return await self._complete(db, ctx.workspace, upload, max_count, ctx.principal, sha256)

    async def complete_as(
        self,
        db: AsyncSession,
        *,
        workspace_id: str,
        project_id: str | None,
        actor_user_id: str | None,
        entity_type: str,
        entity_id: str,
        upload_id: str,
        max_count: int,
        sha256: str | None = None,
    ) -> dict[str, Any]:
        """``complete`` for callers without a ProjectContext (public portals)."""
        workspace = found(
            await upload_repository.get_workspace(db, workspace_id), "Workspace not found"
        )
        upload = await self._upload(db, workspace_id, project_id, entity_type, entity_id, upload_id)
        if upload.created_by != actor_user_id or upload.created_key_id is not None:
            raise NotFound("Upload not found")
        return await self._complete(db, workspace, upload, max_count, None, sha256, actor_user_id)

    async def _upload(
        self,
        db: AsyncSession,
        workspace_id: str,
        project_id: str | None,
        entity_type: str,
        entity_id: str,
        upload_id: str,
    ) -> Upload:
        upload = await upload_repository.get_upload(db, upload_id, "attachment")
        if (
            upload is None
            or upload.workspace_id != workspace_id
            or upload.project_id != project_id
            or upload.entity_type != entity_type
            or upload.entity_id != entity_id
        ):
            raise NotFound("Upload not found")
        return upload

    async def _complete(
        self,
        db: AsyncSession,
        workspace: Workspace,
        upload: Upload,
        max_count: int,
        principal: Principal | None,
        sha256: str | None,
        actor_user_id: str | None = None,
    ) -> dict[str, Any]:
        done = await begin_completion(db, upload)
        if done is not None:
            return done
        size = await verify_and_count(db, upload, workspace, sha256)
        # The count at presign lets several uploads start under the limit, so count again.
        # verify_and_count has just updated the workspace's storage row, which stays locked
        # until commit: completions in one workspace take turns, and this count sees them all.
        entity_type, entity_id = str(upload.entity_type), str(upload.entity_id)
        if await upload_repository.count_attachments(db, entity_type, entity_id) >= max_count:
            await discard(upload.storage_key)
            raise LimitReached(f"At most {max_count} attachments are allowed", maxCount=max_count)
        attachment = Attachment(
            workspace_id=workspace.id,
            project_id=upload.project_id,
            entity_type=entity_type,
            entity_id=entity_id,
            upload_id=upload.id,
            file_name=upload.file_name,
            content_type=upload.content_type,
            size_bytes=size,
            storage_key=upload.storage_key,
            created_by=principal.user_id if principal else actor_user_id,
            created_at=clock.now(),
        )
        db.add(attachment)
        await db.flush()
        # Without a principal the caller is a portal: a signed-in occupant, or an anonymous one.
        await audit_as(
            db,
            principal or ("user" if actor_user_id else "public"),
            (attachment.entity_type, attachment.entity_id),
            "attachment.added",
            created({"attachmentId": attachment.id, "fileName": attachment.file_name}),
            workspace_id=workspace.id,
            project_id=upload.project_id,
        )
        return finish(upload, answer(AttachmentRead, attachment, "url"))

    async def list_for(
        self, db: AsyncSession, entity_type: str, entity_ids: Sequence[str]
    ) -> dict[str, list[dict[str, Any]]]:
        """Attachments of many records in one query, oldest first, each with a read URL valid
        for 15 minutes; every requested id is a key (an empty list when it has none)."""
        found: dict[str, list[dict[str, Any]]] = {entity_id: [] for entity_id in entity_ids}
        storage = get_storage()
        for row in await upload_repository.attachments_for(db, entity_type, list(entity_ids)):
            item = answer(AttachmentRead, row, "url")
            item["url"] = await storage.presign_get(
                row.storage_key,
                expires_in=READ_URL_TTL,
                filename=row.file_name,
                content_type=row.content_type,
            )
            found.setdefault(row.entity_id, []).append(item)
        return found

    async def delete(
        self,
        uow: UnitOfWork,
        *,
        workspace_id: str,
        entity_type: str,
        entity_id: str,
        attachment_id: str,
        principal: Principal | None = None,
    ) -> None:
        """Soft-delete one attachment, free its bytes, remove the object after the commit."""
        db = uow.session
        attachment = await upload_repository.get_attachment(db, attachment_id)
        if (
            attachment is None
            or attachment.workspace_id != workspace_id
            or attachment.entity_type != entity_type
            or attachment.entity_id != entity_id
        ):
            raise NotFound("Attachment not found")
        attachment.deleted_at = clock.now()
        await upload_repository.free_storage(db, workspace_id, attachment.size_bytes)
        await audit_as(
            db,
            principal or "system",
            (entity_type, entity_id),
            "attachment.deleted",
            {"attachmentId": [attachment.id, None]},
            workspace_id=workspace_id,
            project_id=attachment.project_id,
        )
        discard_after_commit(uow, [attachment.storage_key])


attachments = AttachmentService()
