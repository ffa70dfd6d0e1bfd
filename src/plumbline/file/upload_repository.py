"""The queries of uploads, storage usage, attachments and workspace logos."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import CursorResult, case, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import Attachment, Upload, Workspace

# ---- uploads and storage usage


async def get_upload(db: AsyncSession, upload_id: str, purpose: str) -> Upload | None:
    return (
        await db.execute(select(Upload).where(Upload.id == upload_id, Upload.purpose == purpose))
    ).scalar_one_or_none()


async def claim_upload(db: AsyncSession, upload_id: str) -> bool:
    """Mark a pending upload as being completed; False when another request got there first
    (on PostgreSQL the second waits for the first's commit, then sees it completed)."""
    result = await db.execute(
        update(Upload)
        .where(Upload.id == upload_id, Upload.status == "PENDING")
        .values(status="COMPLETING")
        .execution_options(synchronize_session=False)
    )
    return cast(CursorResult[Any], result).rowcount == 1


async def upload_outcome(db: AsyncSession, upload_id: str) -> tuple[str, dict[str, Any] | None]:
    row = (
        await db.execute(select(Upload.status, Upload.result).where(Upload.id == upload_id))
    ).one()
    return row[0], row[1]


async def add_storage(db: AsyncSession, workspace_id: str, size: int, quota: int | None) -> bool:
    """Count ``size`` more stored bytes in one atomic UPDATE; False when over ``quota``."""
    stmt = (
        update(Workspace)
        .where(Workspace.id == workspace_id)
        .values(storage_used_bytes=Workspace.storage_used_bytes + size)
        .execution_options(synchronize_session=False)
    )
    if quota is not None:
        stmt = stmt.where(Workspace.storage_used_bytes + size <= quota)
    return cast(CursorResult[Any], await db.execute(stmt)).rowcount == 1


async def free_storage(db: AsyncSession, workspace_id: str, size: int) -> None:
    if size <= 0:
        return
    await db.execute(
        update(Workspace)
        .where(Workspace.id == workspace_id)
        .values(
            storage_used_bytes=case(
                (Workspace.storage_used_bytes > size, Workspace.storage_used_bytes - size),
                else_=0,
            )
        )
        .execution_options(synchronize_session=False)
    )


# ---- attachments


async def count_attachments(db: AsyncSession, entity_type: str, entity_id: str) -> int:
    query = select(func.count(Attachment.id)).where(
        Attachment.entity_type == entity_type,
        Attachment.entity_id == entity_id,
        Attachment.deleted_at.is_(None),
    )
    return int((await db.execute(query)).scalar_one())


async def attachments_for(
    db: AsyncSession, entity_type: str, entity_ids: Sequence[str]
) -> Sequence[Any]:
    if not entity_ids:
        return []
    query = (
        select(
            Attachment.id,
            Attachment.entity_id,
            Attachment.file_name,
            Attachment.content_type,
            Attachment.size_bytes,
            Attachment.storage_key,
            Attachment.created_at,
            Attachment.created_by,
        )
        .where(
            Attachment.entity_type == entity_type,
            Attachment.entity_id.in_(entity_ids),
            Attachment.deleted_at.is_(None),
        )
        .order_by(Attachment.id)
    )
    return (await db.execute(query)).all()


async def get_attachment(db: AsyncSession, attachment_id: str) -> Attachment | None:
    query = select(Attachment).where(
        Attachment.id == attachment_id, Attachment.deleted_at.is_(None)
    )
    return (await db.execute(query)).scalar_one_or_none()


async def get_workspace(db: AsyncSession, workspace_id: str) -> Workspace | None:
    query = select(Workspace).where(Workspace.id == workspace_id, Workspace.deleted_at.is_(None))
    return (await db.execute(query)).scalar_one_or_none()


async def workspace_logo(db: AsyncSession, workspace_id: str) -> Any:
    query = select(Workspace.logo_key, Workspace.logo_content_type).where(
        Workspace.id == workspace_id, Workspace.deleted_at.is_(None)
    )
    return (await db.execute(query)).first()
