"""The project's changes for open browser tabs (PRODUCT §18, "Live"): each committed event is
published on the project's channel (Redis across processes, ``kit.pubsub``) and every tab of
the project holds one Server-Sent Events stream of it (``pages/live.py``).

A message says only what changed (the resource kind, its id, the event type and who did it),
never the record: a tab that learns of a change asks for the page again, through the same
access checks as any request, so a person never sees through it what they may not see.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.events.hooks import Event
from plumbline.kit import encoding, pubsub

log = logging.getLogger("plumbline.live")
PING_SECONDS = 25.0
CLOSING = {"closing": True}
_streams: set[pubsub.Subscription] = set()


def channel(project_id: str) -> str:
    return f"live:{project_id}"


def _message(event: Event) -> dict[str, Any]:
    return {
        "type": event.type,
        "resource": event.resource,
        "id": event.resource_id,
        "by": event.actor.get("id"),
    }


async def on_written(db: AsyncSession, events: Sequence[Event]) -> None:
    """Publish the transaction's events once it commits (nothing for a rolled-back write)."""
    mine = [(e.project_id, _message(e)) for e in events if e.project_id is not None]
    uow = db.info.get("uow")
    if not mine or uow is None:
        return

    async def publish() -> None:
        for project_id, message in mine:
            try:
                await pubsub.publish(channel(project_id), message)
            except Exception:  # a lost live update is a reload away; never fail the write
                log.warning("live update not published", exc_info=True)

    uow.after_commit(publish)


def sse(name: str, data: dict[str, Any]) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + encoding.dumps(data) + b"\n\n"


PING = b": ping\n\n"


async def stream(project_id: str) -> AsyncIterator[bytes]:
    """One tab's stream: ``change`` events, a comment every 25 s to keep proxies from closing
    it; ends when the server stops (the browser reconnects) or drops a slow reader."""
    subscription = pubsub.subscribe(channel(project_id))
    _streams.add(subscription)
    try:
        await subscription.ready()
        yield b"retry: 5000\n\n"
        while True:
            message = await subscription.next(PING_SECONDS)
            if message is None:
                yield PING
                continue
            if message.get("closing"):
                return
            yield sse("change", message)
    except pubsub.SubscriptionClosed:
        log.info("live stream dropped as a slow consumer")
    except asyncio.CancelledError:
        raise
    finally:
        subscription.close()
        _streams.discard(subscription)


def close_streams() -> None:
    """The server is stopping: every stream of this process ends (its tabs reconnect to
    another)."""
    for subscription in list(_streams):
        subscription.offer(CLOSING)
