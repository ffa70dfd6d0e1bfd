"""Reference photos of issues, stored as attachments (images only, 15 MB each, 12 per issue)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.file.attachments import attachments
from plumbline.issue import repository as repo
from plumbline.issue.access import require_row
from plumbline.issue.schemas import PhotoComplete, PhotoPresign
from plumbline.kit import clock
from plumbline.records.uploads import PHOTO_TYPES

ENTITY_TYPE = repo.PHOTO_ENTITY
MAX_BYTES = 15 * 1024 * 1024
MAX_PHOTOS = 12


async def for_issues(db: AsyncSession, issue_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The photos of a page of issues, in one query (none for an empty page)."""
    if not issue_ids:
        return {}
    return await attachments.list_for(db, ENTITY_TYPE, issue_ids)


class ReferencePhotoService:
    async def presign(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: PhotoPresign
    ) -> dict[str, Any]:
        """An upload target for a reference photo: 415 not an image, 413 over 15 MB,
        409 LIMIT_REACHED at 12 photos."""
        await require_row(db, ctx, issue_id)
        return await attachments.presign(
            db,
            ctx,
            entity_type=ENTITY_TYPE,
            entity_id=issue_id,
            file_name=body.file_name,
            content_type=body.content_type,
            size_bytes=body.size_bytes,
            allowed_types=PHOTO_TYPES,
            max_bytes=MAX_BYTES,
            max_count=MAX_PHOTOS,
        )

    async def complete(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: PhotoComplete
    ) -> dict[str, Any]:
        """Record an uploaded photo (idempotent); the issue counts as updated."""
        await require_row(db, ctx, issue_id)
        photo = await attachments.complete(
            db,
            ctx,
            entity_type=ENTITY_TYPE,
            entity_id=issue_id,
            upload_id=body.upload_id,
            max_count=MAX_PHOTOS,
            sha256=body.sha256,
        )
        await repo.touch(db, issue_id, clock.now())
        return photo

    async def delete(
        self, uow: UnitOfWork, ctx: ProjectContext, issue_id: str, photo_id: str
    ) -> None:
        await require_row(uow.session, ctx, issue_id)
        await attachments.delete(
            uow,
            workspace_id=ctx.workspace.id,
            entity_type=ENTITY_TYPE,
            entity_id=issue_id,
            attachment_id=photo_id,
            principal=ctx.principal,
        )
        await repo.touch(uow.session, issue_id, clock.now())


reference_photos = ReferencePhotoService()
