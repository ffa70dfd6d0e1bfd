import pytest
import redis.asyncio as redis

from plumbline.config import settings
from plumbline.errors import RateLimited
from plumbline.kit import ratelimit
from plumbline.kit.ids import new_id


async def test_memory_backend_counts_and_refuses_over_the_limit() -> None:
    for expected_remaining in (2, 1, 0):
        verdict = await ratelimit.hit("unit:memory", 3, 60)
        assert verdict.remaining == expected_remaining
        assert verdict.headers()["RateLimit-Limit"] == "3"
    with pytest.raises(RateLimited) as refused:
        await ratelimit.hit("unit:memory", 3, 60)
    assert refused.value.status == 429
    assert int(refused.value.headers["Retry-After"]) >= 1  # type: ignore[index]


async def test_redis_backend_shares_counts(redis_url) -> None:  # type: ignore[no-untyped-def]
    ratelimit.set_backend(ratelimit.RedisBackend(redis_url, "plumbline"))
    key = f"unit:redis:{new_id()}"
    first = await ratelimit.hit(key, 2, 60)
    second = await ratelimit.hit(key, 2, 60)
    assert (first.remaining, second.remaining) == (1, 0)
    with pytest.raises(RateLimited):
        await ratelimit.hit(key, 2, 60)


async def test_the_pubsub_prefix_namespaces_the_counters(redis_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(settings, "redis_url", redis_url)
    key = f"unit:prefix:{new_id()}"
    spent = {}
    for prefix in ("deploy-a", "deploy-b"):
        monkeypatch.setattr(settings, "pubsub_prefix", f"{prefix}-{new_id()}")
        ratelimit.set_backend(None)  # built from the settings, as in the app
        spent[settings.pubsub_prefix] = [
            (await ratelimit.hit(key, 5, 60)).remaining for _ in range(2)
        ]
    # two deployments on one Redis: each counts its own hits, under its own prefix
    assert list(spent.values()) == [[4, 3], [4, 3]]
    client = redis.from_url(redis_url)
    try:
        stored = {k.decode() for k in await client.keys(f"*{key}")}
    finally:
        await client.aclose()
    assert stored == {f"{prefix}:rl:{key}" for prefix in spent}
