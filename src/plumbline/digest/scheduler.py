"""The in-process daily scheduler (``PLUMBLINE_SCHEDULER=on``): the daily tasks, once a day."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from plumbline.config import settings
from plumbline.jobs import daily_tasks, run_now
from plumbline.kit import clock

log = logging.getLogger(__name__)


def next_run(now: datetime, hour: int) -> datetime:
    """The next time the daily tasks are due: today at ``hour`` UTC, or tomorrow once past."""
    today = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    return today if now < today else today + timedelta(days=1)


async def scheduler(stop: asyncio.Event) -> None:
    """Run every daily task (``@task(..., daily=...)``) through the job kit now if today's
    ``PLUMBLINE_DIGEST_HOUR`` UTC has passed (catching up a missed day), then every day at that
    hour. Each task is idempotent per day: several processes, restarts or a cron calling the
    internal routes as well never send twice."""
    hour = settings.digest_hour
    due = clock.now().replace(hour=hour, minute=0, second=0, microsecond=0)  # past: run now
    while not stop.is_set():
        wait = (due - clock.now()).total_seconds()
        if wait > 0:
            try:
                await asyncio.wait_for(stop.wait(), timeout=wait)
                return
            except TimeoutError:
                pass
        for kind, name in daily_tasks().items():
            try:
                counts = await run_now(name)
                log.info("daily job ran", extra={"job": kind, **counts})
            except Exception:
                log.exception("daily job failed", extra={"job": kind})
        due = next_run(clock.now(), hour)
