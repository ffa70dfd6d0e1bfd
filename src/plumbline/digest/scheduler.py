"""The daily automation outside a request: ``plumbline digests run`` and, with
``PLUMBLINE_SCHEDULER=on``, a loop in the server process that runs every daily job at
``PLUMBLINE_DIGEST_HOUR`` UTC. A process that starts after that hour runs them at once (catching
up a missed day); each job is idempotent per day, so several processes, restarts or an external
cron calling the internal routes as well never send anything twice."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from plumbline.config import settings
from plumbline.db import UnitOfWork, database
from plumbline.digest import service
from plumbline.digest.om import DIGESTS
from plumbline.kit import clock
from plumbline.proposal.reminders import run_reminders

log = logging.getLogger(__name__)
Daily = Callable[[UnitOfWork, datetime], Awaitable[dict[str, Any]]]


# Every daily job by name: the O&M digests and the proposal reminders.
def _digest(digest: service.Digest) -> Daily:
    async def run(uow: UnitOfWork, now: datetime) -> dict[str, Any]:
        return await service.run(uow, digest, now)

    return run


async def _proposal_reminders(uow: UnitOfWork, now: datetime) -> dict[str, Any]:
    return await run_reminders(uow)  # reads the clock itself


DAILY: dict[str, Daily] = {
    **{kind: _digest(digest) for kind, digest in DIGESTS.items()},
    "proposal-reminders": _proposal_reminders,
}


async def run_daily(kind: str, now: datetime | None = None) -> dict[str, Any]:
    """Run one daily job in a transaction of its own; its e-mails go out after the commit."""
    async with database.sessionmaker() as session:
        uow = UnitOfWork(session)
        try:
            counts = await DAILY[kind](uow, now or clock.now())
            await uow.commit()
        except BaseException:
            await uow.rollback()
            raise
    return counts


def next_run(now: datetime, hour: int) -> datetime:
    """The next time the daily jobs are due: today at ``hour`` UTC, or tomorrow once past."""
    today = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    return today if now < today else today + timedelta(days=1)


async def scheduler(stop: asyncio.Event) -> None:
    """Run the daily jobs now if today's hour has passed, then every day at that hour."""
    hour = settings.digest_hour
    due = clock.now().replace(hour=hour, minute=0, second=0, microsecond=0)
    if clock.now() < due:
        due = next_run(clock.now(), hour)
    while not stop.is_set():
        wait = (due - clock.now()).total_seconds()
        if wait > 0:
            try:
                await asyncio.wait_for(stop.wait(), timeout=wait)
                return
            except TimeoutError:
                pass
        for kind in DAILY:
            try:
                counts = await run_daily(kind)
                log.info("daily job ran", extra={"job": kind, **counts})
            except Exception:
                log.exception("daily job failed", extra={"job": kind})
        due = next_run(clock.now(), hour)
