"""The ``/internal/*`` routes (PRODUCT §13): each digest or reminder runs its daily task."""

from pydantic import BaseModel

from plumbline.auth.deps import Cron
from plumbline.db import UoW
from plumbline.internal.service import run_maintenance
from plumbline.jobs import run_task
from plumbline.kit.responses import ORJSONResponse
from plumbline.proposal.lifecycle.schemas import RemindersResult
from plumbline.routing import make_router
from plumbline.viewer.collab import hub
from plumbline.viewer.schemas import CollabMetrics

router = make_router(prefix="/internal", tags=["internal"], dependencies=[Cron])
# Mounted after the proposal routers, where the served OpenAPI has always listed it.
proposal_reminders_router = make_router(prefix="/internal", tags=["internal"], dependencies=[Cron])


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
    """Daily housekeeping jobs: purge deleted workspaces past 30 days, stale uploads, old
    finished jobs and idempotency keys past 24 hours; without a worker, also run the jobs due
    for a retry (``dueJobs``)."""
    return ORJSONResponse(await run_maintenance(uow))


class DigestResult(BaseModel):
    ok: bool
    day: str
    workspacesNotified: int
    membersEmailed: int
    membersNotified: int
    workspacesSkipped: int


@router.post("/om-maintenance-reminders", response_model=DigestResult)
async def maintenance_reminders(uow: UoW) -> ORJSONResponse:
    """Today's digest of maintenance overdue or due within 7 days (UTC): managers get every
    schedule of the projects they see, others the ones assigned to them; schedules with a meter
    are labelled "Meter/calendar" (once per workspace and UTC day)."""
    return ORJSONResponse(await run_task(uow, "digests.om_maintenance"))


@router.post("/om-inspection-reminders", response_model=DigestResult)
async def inspection_reminders(uow: UoW) -> ORJSONResponse:
    """Today's digest to managers of inspections overdue or due within 7 days (UTC), once per
    workspace and UTC day."""
    return ORJSONResponse(await run_task(uow, "digests.om_inspections"))


@router.post("/om-work-order-aging-reminders", response_model=DigestResult)
async def work_order_aging_reminders(uow: UoW) -> ORJSONResponse:
    """Today's digest to managers of open or in-progress work orders 7 and 30 days old (once per
    workspace and UTC day)."""
    return ORJSONResponse(await run_task(uow, "digests.om_work_order_aging"))


@proposal_reminders_router.post("/proposal-reminders", response_model=RemindersResult)
async def proposal_reminders(uow: UoW) -> ORJSONResponse:
    """Remind senders of proposals expiring within 48 hours (once each) and mark past-due
    SENT and VIEWED proposals EXPIRED."""
    return ORJSONResponse(await run_task(uow, "proposals.remind_expiring"))
