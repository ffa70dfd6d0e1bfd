"""Queueing and running tasks: one transaction per job, retried with exponential backoff."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row

from plumbline.config import settings
from plumbline.db import UnitOfWork, database, discard_notes, prepare_commit
from plumbline.jobs import repository
from plumbline.jobs.registry import TASKS, AttemptFailed, Payload, Permanent, Task, load_tasks
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
    uow: UnitOfWork,
    name: str,
    payload: Payload | None = None,
    *,
    delay: timedelta | None = None,
    key: str | None = None,
) -> Job:
    """Queue a job in the unit of work's transaction: it runs only if that commits. Jobs of
    one ``key`` run one at a time, in the order they were queued: a later one waits while an
    earlier one is queued (its retries included) until it is done or given up."""
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
        key=key,
    )
    uow.session.add(job)
    if delay is None:
        run_after(uow, [job.id])
    return job


def job_row(
    name: str, payload: Payload, *, key: str | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """The row ``enqueue`` writes, for a hot path that inserts it itself in a statement of its
    own (``webhook.repository.insert_deliveries``); ``run_after`` then does what ``enqueue``
    does once the transaction commits."""
    now = now or clock.now()
    return {
        "id": new_id(),
        "name": name,
        "payload": payload,
        "status": repository.QUEUED,
        "attempts": 0,
        "run_at": now,
        "created_at": now,
        "finished_at": None,
        "last_error": None,
        "errors": [],
        "key": key,
    }


def run_after(uow: UnitOfWork, ids: Sequence[str]) -> None:
    """With ``PLUMBLINE_JOBS=inline``, run these queued jobs once ``uow`` commits, after its
    response; with workers, they take them."""
    if settings.jobs == "inline" and ids:
        uow.after_response(lambda: run_jobs(ids))


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
    leaves it queued. A task with a ``lease`` runs after the claim's transaction instead
    (``Task.lease``). False when no job was due."""
    load_tasks()
    async with database.sessionmaker() as db:
        uow = UnitOfWork(db)
        async with db.begin():
            now = clock.now()
            job = await repository.claim(db, now, ids)
            if job is None:
                return False
            task = TASKS.get(job.name)
            lease = task.lease if task is not None else None
            if lease is not None:
                await repository.record(db, job.id, run_at=now + lease)
            else:
                uow = await _attempt(uow, job, task)
        if lease is not None:
            uow = await _attempt(UnitOfWork(db), job, task, leased=True)
            await db.commit()
    await uow.commit()  # runs what the task queued for after its commit
    return True


async def _attempt(
    uow: UnitOfWork, job: Row[Any], task: Task | None, *, leased: bool = False
) -> UnitOfWork:
    """Run the job's handler and write its outcome on its row, in ``uow``'s transaction (a
    leased job's handler may have committed some of its work before). Answers the unit of
    work whose after-commit callbacks stand (a fresh one when the handler's were rolled back)."""
    db = uow.session
    failure: Exception | None = None
    try:
        if leased:
            failure = await _handled(uow, job)
        else:
            async with db.begin_nested():
                failure = await _handled(uow, job)
                await prepare_commit(db)
    except Exception as exc:
        if leased:
            await db.rollback()
        discard_notes(db)
        uow, failure = UnitOfWork(db), exc  # what it queued was rolled back with it
    now, attempts = clock.now(), job.attempts + 1
    values: dict[str, Any] = {"attempts": attempts}
    if failure is None:
        values |= {"status": repository.DONE, "finished_at": now}
    else:
        error = f"{type(failure).__name__}: {failure}"[:2000]
        log.warning("job failed", extra={"jobId": job.id, "job": job.name, "error": error})
        errors = [*job.errors, {"attempt": attempts, "at": clock.iso(now), "error": error}]
        values |= {"errors": errors, "last_error": error}
        age = now - job.created_at
        wait = None if isinstance(failure, Permanent) else _retry(task, attempts, age)
        if wait is not None:
            values["run_at"] = now + wait
        else:
            values |= {"status": repository.FAILED, "finished_at": now}
            if task is not None and task.given_up is not None:
                await task.given_up(db, dict(job.payload), error)
    if "finished_at" in values and task is not None and task.keep is not None:
        values["payload"] = task.keep(job.payload)
    await repository.record(db, job.id, **values)
    await prepare_commit(db)  # the last writes of what the handler (or ``given_up``) changed
    return uow


async def _handled(uow: UnitOfWork, job: Row[Any]) -> AttemptFailed | None:
    """Run the handler: None when it succeeded, the ``AttemptFailed`` whose writes stand."""
    try:
        await run_task(uow, job.name, job.payload)
    except AttemptFailed as failed:
        return failed
    return None


def _retry(task: Task | None, attempts: int, age: timedelta) -> timedelta | None:
    """The wait before the next attempt after ``attempts`` failures, or None to give up."""
    if task is not None and task.retry is not None:
        return task.retry(attempts, age)
    return backoff(attempts) if attempts < MAX_ATTEMPTS else None


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
