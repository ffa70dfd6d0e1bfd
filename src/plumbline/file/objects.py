"""Deleting stored objects: now (best effort) or once the request commits (a job, retried)."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from plumbline.db import UnitOfWork
from plumbline.jobs import enqueue
from plumbline.kit.storage import get_storage

log = logging.getLogger("plumbline.files")


async def discard(key: str) -> None:
    """Delete a stored object, logging rather than failing (it is garbage either way)."""
    try:
        await get_storage().delete(key)
    except Exception:
        log.warning("could not delete stored object %s", key, exc_info=True)


def discard_after_commit(uow: UnitOfWork, keys: Iterable[str]) -> None:
    """Delete these stored objects once the request commits (the ``files.discard`` job)."""
    pending = list(keys)
    if pending:
        enqueue(uow, "files.discard", {"keys": pending})
