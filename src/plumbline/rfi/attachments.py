"""RFI attachments: any type, at most 25 MB and 50 each, through the records' upload flow."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.records.uploads import Uploads
from plumbline.rfi.access import open_rfi
from plumbline.rfi.schemas import AttachmentComplete, AttachmentPresign

ATTACHMENTS = Uploads("rfi", max_bytes=25 * 1024 * 1024, max_count=50, types=None)


class RfiAttachmentService:
    async def presign(
        self, db: AsyncSession, ctx: ProjectContext, rfi_id: str, body: AttachmentPresign
    ) -> dict[str, Any]:
        """An upload target for one attachment of any type (413 over 25 MB, 409 LIMIT_REACHED
        at 50); a closed RFI takes none (409)."""
        rfi = await open_rfi(db, ctx, rfi_id, "attach files")
        return await ATTACHMENTS.presign(db, ctx, rfi, body)

    async def complete(
        self, db: AsyncSession, ctx: ProjectContext, rfi_id: str, body: AttachmentComplete
    ) -> dict[str, Any]:
        """Record an uploaded attachment (idempotent); the RFI counts as updated."""
        rfi = await open_rfi(db, ctx, rfi_id, "attach files")
        return await ATTACHMENTS.complete(db, ctx, rfi, body)


rfi_attachments = RfiAttachmentService()
