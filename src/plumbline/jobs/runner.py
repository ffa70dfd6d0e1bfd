"""Running jobs: one transaction per job, retried with exponential backoff."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import timedelta

from plumbline.db import database
from plumbline.jobs import repository
from plumbline.jobs.registry import TASKS, Permanent, load_tasks
from plumbline.kit import clock

log = logging.getLogger("plumbline.jobs")

MAX_ATTEMPTS = 12  # about 14 hours of retries before a job is given up (at once: Permanent)
FIRST_RETRY = timedelta(seconds=30)
LONGEST_WAIT = timedelta(hours=6)


def backoff(attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failure: 30 s, 1 min, 2 min, ... at most 6 h."""
    return min(FIRST_RETRY * (1 << min(attempts - 1, 20)), LONGEST_WAIT)


async def run_next(ids: Sequence[str] | None = None) -> bool:
    """Claim one due job (of ``ids`` when given), run it and record the outcome, all in one
    transaction: the job's writes commit with its success, and a runner that dies mid-job
    leaves it queued. False when no job was due."""
    load_tasks()
    async with database.sessionmaker() as db, db.begin():
        now = clock.now()
        job = await repository.claim(db, now, ids)
        if job is None:
            return False
        attempts = job.attempts + 1
        task = TASKS.get(job.name)
        try:
            if task is None:
                raise LookupError(f"No job handler is registered as {job.name!r}")
            async with db.begin_nested():
                await task.run(db, dict(job.payload))
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:2000]
            log.warning("job failed", extra={"jobId": job.id, "job": job.name, "error": error})
            errors = [*job.errors, {"attempt": attempts, "at": clock.iso(now), "error": error}]
            values: dict[str, object] = {
                "attempts": attempts,
                "errors": errors,
                "last_error": error,
            }
            if attempts < MAX_ATTEMPTS and not isinstance(exc, Permanent):
                values["run_at"] = now + backoff(attempts)
            else:
                values |= {"status": repository.FAILED, "finished_at": now}
        else:
            values = {"attempts": attempts, "status": repository.DONE, "finished_at": now}
        if "finished_at" in values and task is not None and task.keep is not None:
            values["payload"] = task.keep(job.payload)
        await repository.record(db, job.id, **values)
    return True


async def run_jobs(ids: Sequence[str]) -> None:
    """Run these jobs now if they are due and not taken (the inline mode, after a response)."""
    while await run_next(ids):
        pass


async def run_due(limit: int = 500) -> int:
    ran = 0
    while ran < limit and await run_next():
        ran += 1
    return ran


async def work(stop: asyncio.Event, *, concurrency: int = 1, idle_seconds: float = 1.0) -> None:
    """``plumbline worker``: run due jobs until ``stop`` is set, finishing the ones in hand.
    Any number of these loops, in any number of processes, may share one database."""

    async def loop() -> None:
        while not stop.is_set():
            try:
                ran = await run_next()
            except Exception:  # the database went away: wait, then try again
                log.exception("job runner failed")
                ran = False
            if not ran:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), idle_seconds)

    await asyncio.gather(*(loop() for _ in range(concurrency)))
