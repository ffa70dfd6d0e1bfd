"""Reference photos of issues (images only, 15 MB each, 12 per issue): the records' uploads."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.issue import repository as repo
from plumbline.issue.access import require_entity
from plumbline.issue.schemas import PhotoComplete, PhotoPresign
from plumbline.records.uploads import Uploads

PHOTOS = Uploads(repo.PHOTO_ENTITY, max_bytes=15 * 1024 * 1024, max_count=12)


class ReferencePhotoService:
    async def presign(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: PhotoPresign
    ) -> dict[str, Any]:
        """An upload target for a reference photo: 415 not an image, 413 over 15 MB,
        409 LIMIT_REACHED at 12 photos."""
        return await PHOTOS.presign(db, ctx, await require_entity(db, ctx, issue_id), body)

    async def complete(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: PhotoComplete
    ) -> dict[str, Any]:
        """Record an uploaded photo (idempotent); the issue counts as updated."""
        return await PHOTOS.complete(db, ctx, await require_entity(db, ctx, issue_id), body)

    async def delete(
        self, uow: UnitOfWork, ctx: ProjectContext, issue_id: str, photo_id: str
    ) -> None:
        """Remove a reference photo of an issue the caller may see and edit."""
        issue = await require_entity(uow.session, ctx, issue_id)
        await PHOTOS.delete(uow, ctx, issue, photo_id)


reference_photos = ReferencePhotoService()
