"""The message thread of an RFI: sanitised rich text, one of which may become the answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.authz.project import ProjectContext
from plumbline.errors import InvalidField
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import RfiMessage
from plumbline.rfi.access import open_rfi, visible_rfi
from plumbline.rfi.repository import rfi_repository
from plumbline.rfi.sanitize import sanitize, to_text
from plumbline.rfi.schemas import MessageCreate


def message_dict(v: Mapping[Any, Any], official_id: str | None) -> dict[str, Any]:
    return {
        "id": v["id"],
        "rfiId": v["rfi_id"],
        "projectId": v["project_id"],
        "body": v["body"],
        "createdBy": v["created_by"],
        # As issue comments name theirs: a key wrote it, or its author's account is gone.
        "authorName": (v["author_name"] or "Unknown user")
        if v["created_by"] is not None
        else "API key",
        "createdAt": clock.iso(v["created_at"]),
        "isOfficialResponse": v["id"] == official_id,
    }


class RfiMessageService:
    async def list_messages(
        self, db: AsyncSession, ctx: ProjectContext, rfi_id: str, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The thread of an RFI the caller may see, the official response marked."""
        rfi = await visible_rfi(db, ctx, rfi_id)
        official = (rfi.official_response or {}).get("messageId")
        rows, headers = page.finish(await rfi_repository.message_rows(db, rfi.id, page))
        return [message_dict(row._mapping, official) for row in rows], headers

    async def post(
        self, db: AsyncSession, ctx: ProjectContext, rfi_id: str, body: MessageCreate
    ) -> dict[str, Any]:
        """Anyone who can see the RFI may post (clients comment where RFIs are shared);
        nobody is notified: the workflow's transitions do that."""
        rfi = await open_rfi(db, ctx, rfi_id, "post messages")
        clean = sanitize(body.body)
        if not to_text(clean):
            raise InvalidField("body", "must contain some text")
        message = RfiMessage(
            id=new_id(),
            rfi_id=rfi.id,
            project_id=rfi.project_id,
            workspace_id=rfi.workspace_id,
            body=clean,
            created_by=ctx.user_id,
            created_key_id=ctx.principal.key_id,
            created_at=clock.now(),
        )
        db.add(message)
        await db.flush()
        changes = {"messageId": [None, message.id], "body": [None, clean]}
        await audit_change(db, ctx, ("rfi", rfi.id), "rfi.message_posted", changes)
        author = ctx.principal.user.name if ctx.principal.user else None
        return message_dict({**vars(message), "author_name": author}, None)


rfi_messages = RfiMessageService()
