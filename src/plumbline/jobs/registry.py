"""The tasks by name: ``@task`` declares one, ``load_tasks`` imports every domain's."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import UnitOfWork

Payload = dict[str, Any]
Handler = Callable[[AsyncSession, Payload], Awaitable[object]]
# A retry schedule: (attempts made, time since the job was queued) -> the wait before the next
# attempt, or None to give the job up.
Schedule = Callable[[int, timedelta], timedelta | None]
# Called in the transaction that gives a job up (its schedule ran out, or it raised
# ``Permanent``), with the job's payload and last error: a task's own "failed for good" state.
GivenUp = Callable[[AsyncSession, Payload, str], Awaitable[object]]

# The modules whose ``@task`` handlers every runner knows (a worker imports nothing else); the
# daily tasks run in this order.
TASK_MODULES = (
    "plumbline.mail.tasks",
    "plumbline.file.tasks",
    "plumbline.workspace.tasks",
    "plumbline.jobs.tasks",
    "plumbline.events.tasks",
    "plumbline.idempotency.tasks",
    "plumbline.digest.tasks",
    "plumbline.proposal.tasks",
    "plumbline.webhook.tasks",
)


class Permanent(Exception):
    """Raised by a handler whose job can never succeed (a malformed e-mail, an address refused
    for good): the job is given up at once, the error kept on its row, instead of retried."""


class AttemptFailed(Exception):
    """Raised by a handler whose attempt failed but whose writes must stand (the attempt it
    logged): they commit with the job's row, and the job is retried on its schedule like any
    failure. Any other exception rolls the handler's writes back."""


@dataclass(frozen=True)
class Task:
    name: str
    run: Handler
    # What of the payload to keep once the job is over (a secret-bearing payload drops it).
    keep: Callable[[Payload], Payload] | None = None
    # Daily tasks: the name the scheduler and ``plumbline digests run`` know it by.
    daily: str | None = None
    # Its own retry schedule (else the runner's ``backoff``) and what to do once given up.
    retry: Schedule | None = None
    given_up: GivenUp | None = None
    # Run outside the claim's transaction: the job is held for this long (no other runner
    # takes it meanwhile, and one that died leaves it to be run again after it), so that the
    # handler may end its transaction (``unit_of_work(db).commit_reads()``) before slow work
    # such as a request to another server, holding no lock while it waits.
    lease: timedelta | None = None


TASKS: dict[str, Task] = {}


def task(
    name: str,
    *,
    keep: Callable[[Payload], Payload] | None = None,
    daily: str | None = None,
    retry: Schedule | None = None,
    given_up: GivenUp | None = None,
    lease: timedelta | None = None,
) -> Callable[[Handler], Handler]:
    """Register ``async def handler(db, payload)`` under ``name``. It runs in a unit of work of
    its own (``unit_of_work(db)``: its writes, e-mails and jobs commit with its success), at
    least once: make it idempotent. ``daily``: also run once a day, under that name;
    ``retry``, ``given_up`` and ``lease``: see ``Task``."""

    def register(handler: Handler) -> Handler:
        TASKS[name] = Task(name, handler, keep, daily, retry, given_up, lease)
        return handler

    return register


def unit_of_work(db: AsyncSession) -> UnitOfWork:
    """The unit of work a task runs in, to queue e-mails and jobs that go out once it commits."""
    return cast(UnitOfWork, db.info["uow"])


def load_tasks(*extra: str) -> None:
    """Import every module that declares tasks (and ``extra`` ones), registering them."""
    for module in (*TASK_MODULES, *extra):
        importlib.import_module(module)


def daily_tasks() -> dict[str, str]:
    """The daily tasks in the order they run: the name each is known by -> its job name."""
    load_tasks()
    return {t.daily: t.name for t in TASKS.values() if t.daily}
