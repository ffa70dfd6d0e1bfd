"""Background jobs: queued in the request's transaction, run once it commits.

``enqueue(uow, "mail.send", payload)`` writes a row of ``jobs``; a domain registers the
handler in its ``tasks.py`` with ``@task("mail.send")``. With ``PLUMBLINE_JOBS=inline`` (the
default) the server runs a request's jobs after sending its response; with ``worker``,
``plumbline worker`` processes claim them (``FOR UPDATE SKIP LOCKED`` on PostgreSQL). Daily
tasks (``@task(..., daily=...)``) and the ``/internal`` routes run through ``run_task`` too.
"""

from plumbline.jobs.registry import AttemptFailed, Permanent, daily_tasks, task, unit_of_work
from plumbline.jobs.runner import enqueue, run_now, run_task

__all__ = [
    "AttemptFailed",
    "Permanent",
    "daily_tasks",
    "enqueue",
    "run_now",
    "run_task",
    "task",
    "unit_of_work",
]
