"""Housekeeping of stored objects: discarded objects, abandoned uploads, purged workspaces."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.file.objects import discard
from plumbline.file.uploads import PENDING
from plumbline.jobs import task
from plumbline.jobs.registry import Payload
from plumbline.kit import clock
from plumbline.kit.storage import get_storage
from plumbline.models import Upload

STALE_AFTER = timedelta(days=1)


@task("files.discard")
async def discard_objects(db: AsyncSession, payload: Payload) -> None:
    """Objects whose rows a committed request removed (a failure is retried: deleting twice
    is harmless)."""
    storage = get_storage()
    for key in payload["keys"]:
        await storage.delete(key)


@task("files.purge_stale_uploads")
async def purge_stale_uploads(db: AsyncSession, payload: Payload | None = None) -> int:
    """Remove uploads that expired a day ago without being completed, and any bytes their URL
    received. Flushes only; the caller commits."""
    cutoff = clock.now() - STALE_AFTER
    query = select(Upload.id, Upload.storage_key).where(
        Upload.status == PENDING, Upload.expires_at < cutoff
    )
    rows = (await db.execute(query)).all()
    for row in rows:
        await discard(row.storage_key)
    if rows:
        await db.execute(delete(Upload).where(Upload.id.in_([row.id for row in rows])))
        await db.flush()
    return len(rows)


async def purge_workspace_objects(db: AsyncSession, workspace_ids: list[str]) -> None:
    """The ``before_purge`` hook of ``workspace.service.purge_deleted_workspaces``: every
    object of these workspaces (file versions, attachments, logos, pending uploads) lives
    under ``ws/{workspaceId}/``."""
    storage = get_storage()
    for workspace_id in workspace_ids:
        await storage.delete_prefix(f"ws/{workspace_id}")
