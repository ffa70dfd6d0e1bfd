"""Daily housekeeping, run by an external cron through ``POST /internal/maintenance``."""

from datetime import timedelta
from functools import partial
from typing import Any

from plumbline.db import UnitOfWork
from plumbline.file.tasks import purge_stale_uploads, purge_workspace_objects
from plumbline.kit import clock, mail
from plumbline.workspace.service import purge_deleted_workspaces

# E-mails younger than this may still be on their way from the request that queued them.
RETRY_AFTER = timedelta(minutes=5)


async def run_maintenance(uow: UnitOfWork) -> dict[str, Any]:
    """Purge workspaces past their 30-day restore window (rows and stored objects) and uploads
    that expired without being completed; retry, after the response, the e-mails whose
    delivery failed. Idempotent: a second call finds nothing left."""
    db = uow.session
    purged = await purge_deleted_workspaces(db, before_purge=purge_workspace_objects)
    uploads = await purge_stale_uploads(db)
    retry = await mail.undelivered(db, queued_before=clock.now() - RETRY_AFTER)
    if retry:
        uow.after_response(partial(mail.deliver_pending, retry))
    return {
        "ok": True,
        "purgedWorkspaces": len(purged),
        "purgedUploads": uploads,
        "retriedEmails": len(retry),
    }
