"""Queueing and running tasks: one transaction per job, retried with exponential backoff."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from plumbline.config import settings
from plumbline.db import UnitOfWork, database, discard_notes, prepare_commit
from plumbline.jobs import repository
from plumbline.jobs.registry import TASKS, Payload, Permanent, load_tasks
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Job

log = logging.getLogger("plumbline.jobs")

MAX_ATTEMPTS = 12  # about 14 hours of retries before a job is given up (at once: Permanent)
FIRST_RETRY = timedelta(seconds=30)
LONGEST_WAIT = timedelta(hours=6)


def backoff(attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failure: 30 s, 1 min, 2 min, ... at most 6 h."""
    return min(FIRST_RETRY * (1 << min(attempts - 1, 20)), LONGEST_WAIT)


def enqueue(
    uow: UnitOfWork, name: str, payload: Payload | None = None, *, delay: timedelta | None = None
) -> Job:
    """Queue a job in the unit of work's transaction: it runs only if that commits."""
    now = clock.now()
    job = Job(
        id=new_id(),
        name=name,
        payload=payload or {},
        status=repository.QUEUED,
        attempts=0,
        run_at=now + (delay or timedelta()),
        created_at=now,
        errors=[],
    )
    uow.session.add(job)
    if settings.jobs == "inline" and delay is None:
        uow.after_response(lambda: run_jobs([job.id]))
    return job


async def run_task(uow: UnitOfWork, name: str, payload: Payload | None = None) -> Any:
    """Run the task ``name`` now in ``uow``: how a runner runs a job, and how a caller that
    answers with the task's result (an ``/internal`` route, the CLI) runs it. The one path."""
    load_tasks()
    if name not in TASKS:
        raise LookupError(f"No job handler is registered as {name!r}")
    uow.session.info["uow"] = uow  # the handler's ``unit_of_work(db)``
    return await TASKS[name].run(uow.session, dict(payload or {}))


async def run_now(name: str) -> Any:
    """Run the task ``name`` in a unit of work of its own (the scheduler, the CLI); its e-mails
    and jobs go out once it commits."""
    async with database.sessionmaker() as session:
        uow = UnitOfWork(session)
        try:
            result = await run_task(uow, name)
            await uow.commit()
        except BaseException:
            await uow.rollback()
            raise
    return result


async def run_next(ids: Sequence[str] | None = None) -> bool:
    """Claim one due job (of ``ids`` when given), run it and record the outcome, all in one
    transaction: the job's writes commit with its success, and a runner that dies mid-job
    leaves it queued. False when no job was due."""
    load_tasks()
    async with database.sessionmaker() as db:
        uow = UnitOfWork(db)
        async with db.begin():
            now = clock.now()
            job = await repository.claim(db, now, ids)
            if job is None:
                return False
            attempts, task = job.attempts + 1, TASKS.get(job.name)
            try:
                async with db.begin_nested():
                    await run_task(uow, job.name, job.payload)
                    await prepare_commit(db)
            except Exception as exc:
                uow = UnitOfWork(db)  # what it queued was rolled back with it
                discard_notes(db)
                error = f"{type(exc).__name__}: {exc}"[:2000]
                log.warning("job failed", extra={"jobId": job.id, "job": job.name, "error": error})
                errors = [*job.errors, {"attempt": attempts, "at": clock.iso(now), "error": error}]
                values = {"attempts": attempts, "errors": errors, "last_error": error}
                if attempts < MAX_ATTEMPTS and not isinstance(exc, Permanent):
                    values["run_at"] = now + backoff(attempts)
                else:
                    values |= {"status": repository.FAILED, "finished_at": now}
            else:
                values = {"attempts": attempts, "status": repository.DONE, "finished_at": now}
            if "finished_at" in values and task is not None and task.keep is not None:
                values["payload"] = task.keep(job.payload)
            await repository.record(db, job.id, **values)
    await uow.commit()  # committed above: runs what the task queued for after its commit
    return True


async def run_jobs(ids: Sequence[str]) -> None:
    """Run these jobs now if they are due and not taken (the inline mode, after a response)."""
    while await run_next(ids):
        pass


async def run_due(limit: int = 500) -> int:
    """Run up to ``limit`` due jobs (``POST /internal/maintenance`` without a worker)."""
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
