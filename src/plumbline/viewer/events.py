"""Events to the viewers of a file version: the pub/sub channel and the SSE encoding."""

from __future__ import annotations

import logging
from typing import Any

from plumbline.kit import encoding, pubsub

log = logging.getLogger("plumbline.viewer")


def channel(file_version_id: str) -> str:
    return f"viewer:{file_version_id}"


def sse(event: str, data: Any) -> bytes:
    return b"event: " + event.encode() + b"\ndata: " + encoding.dumps(data) + b"\n\n"


PING = sse("ping", {})


async def publish_to_version(file_version_id: str, event: str, data: dict[str, Any]) -> None:
    """Send ``event`` to everyone viewing the version, in every process. Best effort: a pub/sub
    failure is logged, never raised, so call it after the commit (``uow.after_commit``)."""
    await publish(file_version_id, {"event": event, "data": data})


async def publish(file_version_id: str, envelope: dict[str, Any]) -> None:
    try:
        await pubsub.publish(channel(file_version_id), envelope)
    except Exception:
        log.warning("viewer event not published", exc_info=True)
