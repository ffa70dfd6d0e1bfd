from pydantic import BaseModel

from plumbline.auth.deps import Cron
from plumbline.db import UoW
from plumbline.internal.service import run_maintenance
from plumbline.kit.responses import ORJSONResponse
from plumbline.routing import make_router
from plumbline.viewer.collab import hub
from plumbline.viewer.schemas import CollabMetrics

router = make_router(prefix="/internal", tags=["internal"], dependencies=[Cron])


@router.get("/collab-metrics", response_model=CollabMetrics)
async def collab_metrics() -> ORJSONResponse:
    """Live co-viewing figures of the process that answers (connections, rooms, events)."""
    return ORJSONResponse(hub.metrics())


class MaintenanceResult(BaseModel):
    ok: bool
    queued: list[str]
    dueJobs: int


@router.post("/maintenance", response_model=MaintenanceResult)
async def maintenance(uow: UoW) -> ORJSONResponse:
    """Daily housekeeping jobs: purge deleted workspaces past 30 days, stale uploads and old
    finished jobs; without a worker, also run the jobs due for a retry (``dueJobs``)."""
    return ORJSONResponse(await run_maintenance(uow))
