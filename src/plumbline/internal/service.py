"""Daily housekeeping, run by an external cron through ``POST /internal/maintenance``."""

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.file.tasks import purge_stale_uploads, purge_workspace_objects
from plumbline.workspace.service import purge_deleted_workspaces


async def run_maintenance(db: AsyncSession) -> dict[str, Any]:
    """Purge workspaces past their 30-day restore window (rows and stored objects) and uploads
    that expired without being completed. Idempotent: a second call finds nothing left."""
    purged = await purge_deleted_workspaces(db, before_purge=purge_workspace_objects)
    uploads = await purge_stale_uploads(db)
    return {"ok": True, "purgedWorkspaces": len(purged), "purgedUploads": uploads}
