"""Fixed-window rate limits: in-process by default, Redis when PLUMBLINE_REDIS_URL is set."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Protocol

from starlette.requests import Request

from plumbline.config import settings
from plumbline.errors import RateLimited
from plumbline.kit.client_address import client_ip


def per_ip(request: Request, purpose: str) -> str:
    """The key of ``purpose``'s limit for the request's client address."""
    return f"{purpose}:ip:{client_ip(request) or 'unknown'}"


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int
    enforced: bool = True  # False when PLUMBLINE_RATE_LIMITS is off: no headers then

    def headers(self) -> dict[str, str]:
        if not self.enforced:
            return {}
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.reset_seconds)
        return headers


class Backend(Protocol):
    async def incr(self, key: str, window: int) -> tuple[int, float]:
        """Count one hit in the current window; return the count and seconds until it resets."""


class MemoryBackend:
    def __init__(self) -> None:
        self._windows: dict[str, tuple[float, int]] = {}

    async def incr(self, key: str, window: int) -> tuple[int, float]:
        now = time.monotonic()
        start, count = self._windows.get(key, (now, 0))
        if now - start >= window:
            start, count = now, 0
        count += 1
        self._windows[key] = (start, count)
        if len(self._windows) > 100_000:
            self._windows = {k: v for k, v in self._windows.items() if now - v[0] < window}
        return count, window - (now - start)

    def reset(self) -> None:
        self._windows.clear()


class RedisBackend:
    """Counters under ``<prefix>:rl:``, so deployments sharing a Redis keep their own counts."""

    def __init__(self, url: str, prefix: str) -> None:
        import redis.asyncio as redis

        self._redis = redis.from_url(url)
        self.prefix = f"{prefix}:rl:"

    async def incr(self, key: str, window: int) -> tuple[int, float]:
        name = self.prefix + key
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.incr(name)
            pipe.expire(name, window, nx=True)
            pipe.pttl(name)
            count, _, ttl_ms = await pipe.execute()
        return int(count), max(int(ttl_ms), 0) / 1000


_backend: Backend | None = None


def backend() -> Backend:
    global _backend
    if _backend is None:
        _backend = (
            RedisBackend(settings.redis_url, settings.pubsub_prefix)
            if settings.redis_url
            else MemoryBackend()
        )
    return _backend


def set_backend(value: Backend | None) -> None:
    global _backend
    _backend = value


async def hit(key: str, limit: int, window: int) -> Verdict:
    """Count a request against ``limit`` per ``window`` seconds; raise 429 when over."""
    if not settings.rate_limits:
        return Verdict(True, limit, limit, window, enforced=False)
    count, reset = await backend().incr(key, window)
    verdict = Verdict(count <= limit, limit, max(limit - count, 0), max(math.ceil(reset), 1))
    if not verdict.allowed:
        raise RateLimited(headers=verdict.headers())
    return verdict
