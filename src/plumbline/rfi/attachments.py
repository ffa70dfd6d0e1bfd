"""RFI attachments: any type, at most 25 MB each, through the shared attachment service."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.file.attachments import attachments
from plumbline.file.types import check_type
from plumbline.kit import clock
from plumbline.rfi.access import open_rfi
from plumbline.rfi.schemas import AttachmentComplete, AttachmentPresign

ATTACHMENT_ENTITY = "rfi"
MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024
MAX_ATTACHMENTS = 50
OCTET_STREAM = "application/octet-stream"


class RfiAttachmentService:
    async def presign(
        self, db: AsyncSession, ctx: ProjectContext, rfi_id: str, body: AttachmentPresign
    ) -> dict[str, Any]:
        """An upload target for one attachment of any type (413 over 25 MB, 409 LIMIT_REACHED
        at 50). Types outside the service's known list are stored as application/octet-stream,
        so nothing uploaded here is ever served back as HTML or script."""
        rfi = await open_rfi(db, ctx, rfi_id, "attach files")
        stored = check_type(body.file_name, body.content_type).content_type or OCTET_STREAM
        return await attachments.presign(
            db,
            ctx,
            entity_type=ATTACHMENT_ENTITY,
            entity_id=rfi.id,
            file_name=body.file_name,
            content_type=stored,
            size_bytes=body.size_bytes,
            allowed_types=frozenset({stored}),
            max_bytes=MAX_ATTACHMENT_BYTES,
            max_count=MAX_ATTACHMENTS,
        )

    async def complete(
        self, db: AsyncSession, ctx: ProjectContext, rfi_id: str, body: AttachmentComplete
    ) -> dict[str, Any]:
        """Record an uploaded attachment (idempotent); the RFI counts as updated."""
        rfi = await open_rfi(db, ctx, rfi_id, "attach files")
        attachment = await attachments.complete(
            db,
            ctx,
            entity_type=ATTACHMENT_ENTITY,
            entity_id=rfi.id,
            upload_id=body.upload_id,
            max_count=MAX_ATTACHMENTS,
            sha256=body.sha256,
        )
        rfi.updated_at = clock.now()
        return attachment


rfi_attachments = RfiAttachmentService()
