"""The message thread of an RFI: sanitised rich text, one of which may become the answer."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit
from plumbline.authz.project import ProjectContext
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import RfiMessage
from plumbline.rfi.access import open_rfi, visible_rfi
from plumbline.rfi.errors import invalid
from plumbline.rfi.repository import rfi_repository
from plumbline.rfi.sanitize import sanitize, to_text
from plumbline.rfi.schemas import MessageCreate
from plumbline.rfi.views import message_dict


class RfiMessageService:
    async def list_messages(
        self, db: AsyncSession, ctx: ProjectContext, rfi_id: str, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
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
            raise invalid("body", "must contain some text")
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
        await audit.record(
            db,
            action="rfi.message_posted",
            entity_type="rfi",
            entity_id=rfi.id,
            principal=ctx.principal,
            workspace_id=rfi.workspace_id,
            project_id=rfi.project_id,
            changes={"messageId": [None, message.id], "body": [None, clean]},
        )
        author = ctx.principal.user.name if ctx.principal.user else None
        values = {
            "id": message.id,
            "rfi_id": rfi.id,
            "project_id": rfi.project_id,
            "body": clean,
            "created_by": message.created_by,
            "created_at": message.created_at,
            "author_name": author,
        }
        return message_dict(values, None)


rfi_messages = RfiMessageService()
