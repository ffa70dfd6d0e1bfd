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


def user_channel(user_id: str) -> str:
    """A person's own channel: "a notification arrived" (the tab asks for its bell again)."""
    return f"live-user:{user_id}"


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


def notified(db: AsyncSession, user_ids: Sequence[str]) -> None:
    """Tell these people's open tabs, once the transaction commits, that a notification
    arrived (the message carries nothing but that)."""
    uow = db.info.get("uow")
    if not user_ids or uow is None:
        return

    async def publish() -> None:
        for user_id in sorted(set(user_ids)):
            try:
                await pubsub.publish(user_channel(user_id), {"type": "notification"})
            except Exception:  # the bell is right again on the next page
                log.warning("live notification not published", exc_info=True)

    uow.after_commit(publish)


def sse(name: str, data: dict[str, Any]) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + encoding.dumps(data) + b"\n\n"


PING = b": ping\n\n"


async def _next(
    subscriptions: dict[pubsub.Subscription, str], timeout: float
) -> list[tuple[str, dict[str, Any]]]:
    """What arrived on any of the subscriptions (``(event name, message)``), waiting at most
    ``timeout`` seconds; [] after the wait. Raises ``SubscriptionClosed`` as ``next`` does."""
    ready = [(name, m) for s, name in subscriptions.items() if (m := s.next_nowait()) is not None]
    if ready:
        return ready
    waits = {asyncio.ensure_future(s.next(timeout)): name for s, name in subscriptions.items()}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return [(waits[t], m) for t in done if (m := t.result()) is not None]


async def stream(user_id: str, project_id: str | None = None) -> AsyncIterator[bytes]:
    """One tab's stream: ``notification`` when one arrives for the person, ``change`` for each
    of the project's events (when the tab is in a project), a comment every 25 s to keep
    proxies from closing it; ends when the server stops (the browser reconnects) or drops a
    slow reader."""
    names = {user_channel(user_id): "notification"}
    if project_id is not None:
        names[channel(project_id)] = "change"
    subscriptions = {pubsub.subscribe(c): name for c, name in names.items()}
    _streams.update(subscriptions)
    try:
        for subscription in subscriptions:
            await subscription.ready()
        yield b"retry: 5000\n\n"
        while True:
            arrived = await _next(subscriptions, PING_SECONDS)
            if not arrived:
                yield PING
            for name, message in arrived:
                if message.get("closing"):
                    return
                yield sse(name, message)
    except pubsub.SubscriptionClosed:
        log.info("live stream dropped as a slow consumer")
    except asyncio.CancelledError:
        raise
    finally:
        for subscription in subscriptions:
            subscription.close()
            _streams.discard(subscription)


def close_streams() -> None:
    """The server is stopping: every stream of this process ends (its tabs reconnect to
    another)."""
    for subscription in list(_streams):
        subscription.offer(CLOSING)
