"""``/internal/proposal-reminders``, called by an external cron with the cron secret."""

from plumbline.auth.deps import Cron
from plumbline.db import UoW
from plumbline.kit.responses import ORJSONResponse
from plumbline.proposal.lifecycle.schemas import RemindersResult
from plumbline.proposal.reminders import run_reminders
from plumbline.routing import make_router

router = make_router(prefix="/internal", tags=["internal"], dependencies=[Cron])


@router.post("/proposal-reminders", response_model=RemindersResult)
async def proposal_reminders(uow: UoW) -> ORJSONResponse:
    """Remind senders of proposals expiring within 48 hours (once each) and mark past-due
    SENT and VIEWED proposals EXPIRED."""
    return ORJSONResponse(await run_reminders(uow))
