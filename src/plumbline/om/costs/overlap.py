"""A person's labour time is counted once: their timed entries never overlap in a workspace."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.kit import clock
from plumbline.om.costs import repository as repo
from plumbline.om.errors import LabourOverlap


async def own_time(
    db: AsyncSession,
    ctx: ProjectContext,
    user_id: str,
    start: datetime,
    end: datetime | None,
    *,
    entry_id: str | None = None,
) -> None:
    """409 ``LABOUR_OVERLAP`` when [start, end) (end None: from start on) shares time with
    another timed labour entry of the person in the workspace, on any work order of any
    project (touching end to start is fine); called under the person's lock
    (``CostService._person``)."""
    other = await repo.overlapping(db, ctx.workspace.id, user_id, start, end, entry_id)
    if other is not None:
        raise LabourOverlap(
            {
                "id": other.id,
                "workOrderId": other.work_order_id,
                "projectId": other.project_id,
                "startedAt": clock.iso(other.started_at),
                "endedAt": clock.iso(other.ended_at),
            }
        )
