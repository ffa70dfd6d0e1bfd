"""Daily housekeeping, run by an external cron through ``POST /internal/maintenance``."""

from typing import Any

from plumbline.config import settings
from plumbline.db import UnitOfWork
from plumbline.jobs import enqueue, repository
from plumbline.jobs.runner import run_due
from plumbline.kit import clock

HOUSEKEEPING = (
    "workspaces.purge_deleted",
    "files.purge_stale_uploads",
    "jobs.purge_finished",
    "events.purge_expired",
    "webhooks.purge_deliveries",
    "idempotency.purge_expired",
)


async def run_maintenance(uow: UnitOfWork) -> dict[str, Any]:
    """Queue the housekeeping jobs. When the server runs jobs itself (``PLUMBLINE_JOBS=inline``)
    they run after the response, followed by the queued jobs whose (re)try time has come (the
    server's own loop runs them too). Idempotent: a second call finds nothing left."""
    due = 0
    if settings.jobs == "inline":
        due = await repository.count_due(uow.session, clock.now())
    for name in HOUSEKEEPING:
        enqueue(uow, name)
    if due:
        uow.after_response(run_due)
    return {"ok": True, "queued": list(HOUSEKEEPING), "dueJobs": due}
