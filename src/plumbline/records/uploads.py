"""One presign/complete/delete flow for the files of a record, within per-module limits.

Issue and punch reference photos, RFI attachments (stored as attachments).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.file.attachments import Target, attachments
from plumbline.file.types import check_type
from plumbline.kit import clock
from plumbline.records import Record

# Reference photos of issues and punch items: images only.
PHOTO_TYPES = frozenset({"image/jpeg", "image/png", "image/webp", "image/heic"})
OCTET_STREAM = "application/octet-stream"


class Presign(Protocol):
    file_name: str
    content_type: str
    size_bytes: int


class Complete(Protocol):
    upload_id: str
    sha256: str | None


@dataclass(frozen=True)
class Uploads:
    """The files of one record kind: ``types`` None takes any type, stored under its known
    type or as application/octet-stream (never served back as HTML or script). Completing or
    removing a file counts as an update of the record."""

    entity_type: str
    max_bytes: int
    max_count: int
    types: frozenset[str] | None = PHOTO_TYPES

    async def of(self, db: AsyncSession, ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """The files of many records in one query (none for no records); every id is a key."""
        return await attachments.list_for(db, self.entity_type, ids) if ids else {}

    def _target(self, record_id: str, body: Presign) -> Target:
        stored = body.content_type
        if self.types is None:
            stored = check_type(body.file_name, body.content_type).content_type or OCTET_STREAM
        return Target(
            entity_type=self.entity_type,
            entity_id=record_id,
            file_name=body.file_name,
            content_type=stored,
            size_bytes=body.size_bytes,
            allowed_types=self.types or frozenset({stored}),
            max_bytes=self.max_bytes,
            max_count=self.max_count,
        )

    async def presign(
        self, db: AsyncSession, ctx: ProjectContext, record: Record, body: Presign
    ) -> dict[str, Any]:
        """An upload target: 415 wrong type, 413 too large, 409 LIMIT_REACHED when full."""
        return await attachments.presign(db, ctx, **self._target(record.id, body))

    async def presign_public(
        self, db: AsyncSession, scope: tuple[str, str], record_id: str, body: Presign
    ) -> dict[str, Any]:
        """``presign`` for a public portal's caller (no user) in ``scope`` (workspace and
        project ids)."""
        workspace_id, project_id = scope
        return await attachments.presign_as(
            db,
            workspace_id=workspace_id,
            project_id=project_id,
            actor_user_id=None,
            **self._target(record_id, body),
        )

    async def complete_public(
        self, db: AsyncSession, scope: tuple[str, str], record_id: str, body: Complete
    ) -> dict[str, Any]:
        """``complete`` for a public portal's caller: the record itself is left as it is."""
        workspace_id, project_id = scope
        return await attachments.complete_as(
            db,
            workspace_id=workspace_id,
            project_id=project_id,
            actor_user_id=None,
            entity_type=self.entity_type,
            entity_id=record_id,
            upload_id=body.upload_id,
            max_count=self.max_count,
            sha256=body.sha256,
        )

    async def complete(
        self, db: AsyncSession, ctx: ProjectContext, record: Record, body: Complete
    ) -> dict[str, Any]:
        """Record an uploaded file (idempotent)."""
        found = await attachments.complete(
            db,
            ctx,
            entity_type=self.entity_type,
            entity_id=record.id,
            upload_id=body.upload_id,
            max_count=self.max_count,
            sha256=body.sha256,
        )
        record.updated_at = clock.now()
        await db.flush()
        return found

    async def delete(
        self, uow: UnitOfWork, ctx: ProjectContext, record: Record, attachment_id: str
    ) -> None:
        await attachments.delete(
            uow,
            workspace_id=ctx.workspace.id,
            entity_type=self.entity_type,
            entity_id=record.id,
            attachment_id=attachment_id,
            principal=ctx.principal,
        )
        record.updated_at = clock.now()
        await uow.session.flush()


Load = Callable[[AsyncSession, ProjectContext, str], Awaitable[Any]]


@dataclass(frozen=True)
class RecordFiles:
    """The upload routes of a record kind: the record the path names (``load``: within what the
    caller may see, else 404), then its ``uploads``."""

    uploads: Uploads
    load: Load

    async def presign(
        self, db: AsyncSession, ctx: ProjectContext, record_id: str, body: Presign
    ) -> dict[str, Any]:
        return await self.uploads.presign(db, ctx, await self.load(db, ctx, record_id), body)

    async def complete(
        self, db: AsyncSession, ctx: ProjectContext, record_id: str, body: Complete
    ) -> dict[str, Any]:
        return await self.uploads.complete(db, ctx, await self.load(db, ctx, record_id), body)

    async def delete(
        self, uow: UnitOfWork, ctx: ProjectContext, record_id: str, attachment_id: str
    ) -> None:
        record = await self.load(uow.session, ctx, record_id)
        await self.uploads.delete(uow, ctx, record, attachment_id)
