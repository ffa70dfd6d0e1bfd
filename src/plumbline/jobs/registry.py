"""The tasks by name: ``@task`` declares one, ``load_tasks`` imports every domain's."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import UnitOfWork

Payload = dict[str, Any]
Handler = Callable[[AsyncSession, Payload], Awaitable[object]]

# The modules whose ``@task`` handlers every runner knows (a worker imports nothing else); the
# daily tasks run in this order.
TASK_MODULES = (
    "plumbline.mail.tasks",
    "plumbline.file.tasks",
    "plumbline.workspace.tasks",
    "plumbline.jobs.tasks",
    "plumbline.events.tasks",
    "plumbline.digest.tasks",
    "plumbline.proposal.tasks",
)


class Permanent(Exception):
    """Raised by a handler whose job can never succeed (a malformed e-mail, an address refused
    for good): the job is given up at once, the error kept on its row, instead of retried."""


@dataclass(frozen=True)
class Task:
    name: str
    run: Handler
    # What of the payload to keep once the job is over (a secret-bearing payload drops it).
    keep: Callable[[Payload], Payload] | None = None
    # Daily tasks: the name the scheduler and ``plumbline digests run`` know it by.
    daily: str | None = None


TASKS: dict[str, Task] = {}


def task(
    name: str, *, keep: Callable[[Payload], Payload] | None = None, daily: str | None = None
) -> Callable[[Handler], Handler]:
    """Register ``async def handler(db, payload)`` under ``name``. It runs in a unit of work of
    its own (``unit_of_work(db)``: its writes, e-mails and jobs commit with its success), at
    least once: make it idempotent. ``daily``: also run once a day, under that name."""

    def register(handler: Handler) -> Handler:
        TASKS[name] = Task(name, handler, keep, daily)
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
