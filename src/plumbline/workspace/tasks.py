"""Workspace jobs."""

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.file.tasks import purge_workspace_objects
from plumbline.jobs import task
from plumbline.jobs.registry import Payload
from plumbline.workspace.service import purge_deleted_workspaces


@task("workspaces.purge_deleted")
async def purge_deleted(db: AsyncSession, payload: Payload) -> int:
    """Workspaces past their 30-day restore window: rows and stored objects."""
    return len(await purge_deleted_workspaces(db, before_purge=purge_workspace_objects))
