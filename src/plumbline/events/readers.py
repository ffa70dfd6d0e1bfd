"""How each resource is read back for its events: one function per resource kind, taking ids
and answering ``{id: the resource exactly as the API returns it}`` (ids no longer found are
left out), without the caller's visibility (an event is the system's record of a change).

A domain declares its reader with ``@reader("issue")`` beside its read shape; the module goes
in ``READER_MODULES`` (imported on first use, as the job kit loads its tasks)."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.events.catalogue import RESOURCES

Reader = Callable[[AsyncSession, Sequence[str]], Awaitable[dict[str, dict[str, Any]]]]
READERS: dict[str, Reader] = {}
READER_MODULES = (
    "plumbline.issue.service",
    "plumbline.issue.comments",
    "plumbline.rfi.service",
    "plumbline.punch.service",
    "plumbline.field_report.service",
    "plumbline.proposal.read",
    "plumbline.om.assets.service",
    "plumbline.om.maintenance.service",
    "plumbline.om.inspections.service",
    "plumbline.om.parts.service",
    "plumbline.om.costs.service",
    "plumbline.om.purchasing.service",
    "plumbline.om.reliability.service",
    "plumbline.schedule.service",
    "plumbline.material.service",
    "plumbline.file.files",
)


def reader(resource: str) -> Callable[[Reader], Reader]:
    if resource not in RESOURCES:
        raise ValueError(f"{resource!r} is not a resource of the event catalogue")

    def register(function: Reader) -> Reader:
        READERS[resource] = function
        return function

    return register


def load() -> None:
    for module in READER_MODULES:
        importlib.import_module(module)


async def read(db: AsyncSession, resource: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    if resource not in READERS:
        load()
    return await READERS[resource](db, ids)
