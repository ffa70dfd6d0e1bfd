"""Channels of JSON events: in-process queues by default, Redis pub/sub when configured.

With ``PLUMBLINE_REDIS_URL`` set, several server processes share the same channels.

Delivery is at-most-once and never blocks the publisher: each subscriber has a bounded queue, and
a subscriber whose queue is full is dropped (its iterator ends) rather than slowing everyone
down. Consumers that must not miss events resynchronise when they see the end (SSE clients
reconnect).

With Redis, each process holds one pattern subscription (``<prefix>:*``) and fans the messages out
to its local subscribers; a publish goes to Redis only and comes back through that subscription,
so local and remote subscribers see the same order. The prefix (``PLUMBLINE_PUBSUB_PREFIX``,
default ``plumbline``) keeps deployments and test runs sharing one Redis apart.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Any, Protocol, cast

import orjson
from pydantic.alias_generators import to_camel

from plumbline.config import settings
from plumbline.kit import encoding

log = logging.getLogger("plumbline.pubsub")

DEFAULT_QUEUE_SIZE = 256
READY_TIMEOUT = 5.0
Event = dict[str, Any]


class SubscriptionClosed(Exception):
    """The subscription ended: closed by its owner, or dropped as a slow consumer."""


@dataclass
class Stats:
    events_published: int = 0
    events_delivered: int = 0
    events_dropped: int = 0
    slow_consumers_dropped: int = 0
    subscribers: int = 0

    def as_dict(self) -> dict[str, int]:
        return {to_camel(name): value for name, value in asdict(self).items()}


class Fanout:
    """The local side of every broker: channel -> subscribers of this process."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self._channels: dict[str, set[Subscription]] = {}

    def add(self, subscription: Subscription) -> None:
        self._channels.setdefault(subscription.channel, set()).add(subscription)
        self.stats.subscribers += 1

    def remove(self, subscription: Subscription) -> None:
        members = self._channels.get(subscription.channel)
        if members is None or subscription not in members:
            return
        members.discard(subscription)
        self.stats.subscribers -= 1
        if not members:
            del self._channels[subscription.channel]

    def deliver(self, channel: str, event: Event) -> None:
        for subscription in list(self._channels.get(channel, ())):
            if subscription.offer(event):
                self.stats.events_delivered += 1
            else:
                self.stats.events_dropped += 1
                self.stats.slow_consumers_dropped += 1
                self.remove(subscription)

    def channels(self) -> int:
        return len(self._channels)


class Subscription:
    """One consumer of one channel: ``async with`` it, then ``async for`` or ``await next()``."""

    def __init__(self, broker: Broker, channel: str, maxsize: int) -> None:
        self.broker = broker
        self.channel = channel
        self._queue: asyncio.Queue[Event] = asyncio.Queue(maxsize)
        self.dropped = False
        self.closed = False

    def offer(self, event: Event) -> bool:
        """Queue an event without blocking; False (and the subscription is dropped) when full."""
        if self.closed:
            return True
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            self.dropped = True
            return False
        return True

    async def next(self, timeout: float | None = None) -> Event | None:
        """The next event, or None after ``timeout`` seconds; raises SubscriptionClosed."""
        if self.closed or self.dropped:
            raise SubscriptionClosed
        try:
            async with asyncio.timeout(timeout):
                return await self._queue.get()
        except TimeoutError:
            return None

    def next_nowait(self) -> Event | None:
        if self.closed or self.dropped:
            raise SubscriptionClosed
        try:
            return self._queue.get_nowait()
        except asyncio.QueueEmpty:
            return None

    async def ready(self) -> None:
        await self.broker.ready()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.broker.fanout.remove(self)

    async def __aenter__(self) -> Subscription:
        await self.ready()
        return self

    async def __aexit__(
        self, _: type[BaseException] | None, __: BaseException | None, ___: TracebackType | None
    ) -> None:
        self.close()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        try:
            return cast(Event, await self.next())  # no timeout: never None
        except SubscriptionClosed:
            raise StopAsyncIteration from None


class Broker(Protocol):
    stats: Stats
    fanout: Fanout
    kind: str

    async def publish(self, channel: str, event: Event) -> None: ...

    def subscribe(self, channel: str, maxsize: int = DEFAULT_QUEUE_SIZE) -> Subscription: ...

    async def ready(self) -> None: ...

    async def close(self) -> None: ...


class MemoryBroker:
    """One process: publishing hands the event straight to the local subscribers' queues."""

    kind = "memory"

    def __init__(self) -> None:
        self.stats = Stats()
        self.fanout = Fanout(self.stats)

    async def publish(self, channel: str, event: Event) -> None:
        self.stats.events_published += 1
        self.fanout.deliver(channel, event)

    def subscribe(self, channel: str, maxsize: int = DEFAULT_QUEUE_SIZE) -> Subscription:
        subscription = Subscription(self, channel, maxsize)
        self.fanout.add(subscription)
        return subscription

    async def ready(self) -> None:
        return None

    async def close(self) -> None:
        return None


def _glob_escape(value: str) -> str:
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in value)


class RedisBroker:
    """Several processes: events travel through Redis; one pattern subscription per process."""

    kind = "redis"

    def __init__(self, url: str, prefix: str) -> None:
        import redis.asyncio as redis

        self.stats = Stats()
        self.fanout = Fanout(self.stats)
        self.prefix = f"{prefix}:ch:"
        self._redis = redis.from_url(url)
        self._listener: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def publish(self, channel: str, event: Event) -> None:
        self.stats.events_published += 1
        await self._redis.publish(self.prefix + channel, encoding.dumps(event))

    def subscribe(self, channel: str, maxsize: int = DEFAULT_QUEUE_SIZE) -> Subscription:
        self._start()
        subscription = Subscription(self, channel, maxsize)
        self.fanout.add(subscription)
        return subscription

    async def ready(self) -> None:
        """Wait until this process's pattern subscription is confirmed by Redis."""
        self._start()
        try:
            async with asyncio.timeout(READY_TIMEOUT):
                await self._ready.wait()
        except TimeoutError:
            log.warning("redis pub/sub subscription not confirmed; events may be missed")

    def _start(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name="pubsub-redis-listener")

    async def _listen(self) -> None:
        pattern = _glob_escape(self.prefix) + "*"
        while True:
            pubsub = self._redis.pubsub()
            try:
                await pubsub.psubscribe(pattern)
                async for message in pubsub.listen():
                    kind = message.get("type")
                    if kind == "psubscribe":
                        self._ready.set()
                    elif kind == "pmessage":
                        channel = message["channel"]
                        if isinstance(channel, bytes):
                            channel = channel.decode()
                        self.fanout.deliver(
                            channel[len(self.prefix) :], orjson.loads(message["data"])
                        )
            except asyncio.CancelledError:
                raise
            except Exception:
                self._ready.clear()
                log.warning("redis pub/sub listener failed; reconnecting", exc_info=True)
                await asyncio.sleep(1)
            finally:
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            try:
                await self._listener
            except (asyncio.CancelledError, Exception):
                log.debug("listener closed", exc_info=True)
            self._listener = None
        await self._redis.aclose()


def prefix() -> str:
    """The namespace of channels and keys in a shared Redis."""
    return settings.pubsub_prefix


_broker: Broker | None = None


def broker() -> Broker:
    global _broker
    if _broker is None:
        _broker = (
            RedisBroker(settings.redis_url, prefix()) if settings.redis_url else MemoryBroker()
        )
    return _broker


def set_broker(value: Broker | None) -> None:
    global _broker
    _broker = value


async def publish(channel: str, event: Event) -> None:
    """Send ``event`` to every current subscriber of ``channel``, in every process."""
    await broker().publish(channel, event)


def subscribe(channel: str, maxsize: int = DEFAULT_QUEUE_SIZE) -> Subscription:
    """A new subscription, registered at once; ``async with`` waits until it is live."""
    return broker().subscribe(channel, maxsize)


def stats() -> dict[str, Any]:
    current = broker()
    return {
        **current.stats.as_dict(),
        "channels": current.fanout.channels(),
        "backend": current.kind,
    }
