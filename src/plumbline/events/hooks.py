"""The shape every consumer of events relies on (webhooks, the change feed): an ``Event`` and
the ``on_written`` hook point, run in the write's own transaction."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit import clock


@dataclass(frozen=True)
class Event:
    """One change, as written in the ``events`` table and sent to webhooks."""

    id: str
    seq: int  # its number in its stream, in commit order
    stream: str  # its project, or its workspace for workspace resources (materials)
    type: str  # "issue.created", "rfi.answered", "proposal.accepted" (catalogue.TYPES)
    created_at: datetime
    workspace_id: str
    project_id: str | None  # None for workspace resources (materials)
    actor: dict[str, str | None]  # {"type": "user" | "key" | "public" | "system", "id": ...}
    resource: str  # the resource kind: "issue", "rfi", "material", ...
    resource_id: str
    data: dict[str, Any]  # the resource exactly as the API returns it; a tombstone once deleted

    def body(self) -> dict[str, Any]:
        """What a webhook receives and the change feed answers."""
        return {
            "id": self.id,
            "type": self.type,
            "createdAt": clock.iso(self.created_at),
            "projectId": self.project_id,
            "actor": self.actor,
            "data": self.data,
        }


OnWritten = Callable[[AsyncSession, Sequence[Event]], Awaitable[None]]
_on_written: list[OnWritten] = []


def on_written(callback: OnWritten) -> None:
    """Run ``callback`` with the events a transaction wrote, in that transaction, after their
    rows are written and before it commits (connected once, in ``plumbline.wiring``)."""
    if callback not in _on_written:
        _on_written.append(callback)


async def written(db: AsyncSession, events: Sequence[Event]) -> None:
    """Run the callbacks, in the order they were connected."""
    for callback in _on_written:
        await callback(db, events)
