"""The in-process daily scheduler (``PLUMBLINE_SCHEDULER=on``): the daily tasks, once a day,
whatever the number of servers that have it on (``digest.lease``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import date, datetime, timedelta

from plumbline.config import settings
from plumbline.digest import lease
from plumbline.jobs import daily_tasks, run_now
from plumbline.kit import clock

log = logging.getLogger(__name__)


def next_run(now: datetime, hour: int) -> datetime:
    """The next time the daily tasks are due: today at ``hour`` UTC, or tomorrow once past."""
    today = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    return today if now < today else today + timedelta(days=1)


async def _renewing(name: str, stop: asyncio.Event) -> None:
    """Renew the lease on ``name`` until cancelled (the task's run ended)."""
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), lease.LEASE.total_seconds() / 3)
        try:
            if not await lease.renew(name):
                log.warning("daily job lease lost", extra={"job": name})
        except Exception:
            log.warning("daily job lease not renewed", exc_info=True)


async def run_once(kind: str, name: str, day: date) -> bool:
    """Run the daily task if this process takes its lease for ``day``; True when it ran here."""
    if not await lease.take(name, day):
        log.info("daily job not run here", extra={"job": kind, "day": day.isoformat()})
        return False
    ended = asyncio.Event()
    renewing = asyncio.create_task(_renewing(name, ended))
    try:
        counts = await run_now(name)
    except Exception:
        log.exception("daily job failed", extra={"job": kind})
        await lease.release(name, None)
        return False
    finally:
        ended.set()
        await renewing
    await lease.release(name, day)
    log.info("daily job ran", extra={"job": kind, **counts})
    return True


async def scheduler(stop: asyncio.Event) -> None:
    """Run every daily task (``@task(..., daily=...)``) through the job kit once today's
    ``PLUMBLINE_DIGEST_HOUR`` UTC has passed (at once when the server starts later: a missed
    day is caught up), then every day at that hour. Each task runs in the one process that
    takes its lease for the day; the others look again every lease period, until each task ran
    that day (a holder that died, a run that failed). The tasks are idempotent per day as well:
    a cron calling the internal routes too never sends twice."""
    hour = settings.digest_hour
    while not stop.is_set():
        now = clock.now()
        due = now.replace(hour=hour, minute=0, second=0, microsecond=0)
        if now < due:
            wait = (due - now).total_seconds()
        else:
            day, pending = due.date(), False
            for kind, name in daily_tasks().items():
                if stop.is_set():
                    return
                try:
                    await run_once(kind, name, day)
                    pending = pending or not await lease.done(name, day)
                except Exception:  # the database went away: look again later
                    log.exception("daily job not started", extra={"job": kind})
                    pending = True
            later = next_run(clock.now(), hour)
            wait = (later - clock.now()).total_seconds()
            if pending:
                wait = min(wait, lease.LEASE.total_seconds())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=max(wait, 0.0))
