"""The job handlers by name, and ``enqueue``."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.config import settings
from plumbline.db import UnitOfWork
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Job

Payload = dict[str, Any]
Handler = Callable[[AsyncSession, Payload], Awaitable[object]]

# The modules whose ``@task`` handlers every runner knows (a worker imports nothing else).
TASK_MODULES = (
    "plumbline.mail.tasks",
    "plumbline.file.tasks",
    "plumbline.workspace.tasks",
    "plumbline.jobs.tasks",
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


TASKS: dict[str, Task] = {}


def task(
    name: str, *, keep: Callable[[Payload], Payload] | None = None
) -> Callable[[Handler], Handler]:
    """Register ``async def handler(db, payload)`` under ``name``. It runs in the job's own
    transaction (its writes commit with the job's success), at least once: make it idempotent."""

    def register(handler: Handler) -> Handler:
        TASKS[name] = Task(name, handler, keep)
        return handler

    return register


def load_tasks(*extra: str) -> None:
    for module in (*TASK_MODULES, *extra):
        importlib.import_module(module)


def enqueue(
    uow: UnitOfWork, name: str, payload: Payload | None = None, *, delay: timedelta | None = None
) -> Job:
    """Queue a job in the unit of work's transaction: it runs only if that commits."""
    now = clock.now()
    job = Job(
        id=new_id(),
        name=name,
        payload=payload or {},
        status="queued",
        attempts=0,
        run_at=now + (delay or timedelta()),
        created_at=now,
        errors=[],
    )
    uow.session.add(job)
    if settings.jobs == "inline" and delay is None:
        from plumbline.jobs.runner import run_jobs

        uow.after_response(lambda: run_jobs([job.id]))
    return job
