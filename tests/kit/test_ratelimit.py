import pytest

from plumbline.errors import RateLimited
from plumbline.kit import ratelimit


async def test_memory_backend_counts_and_refuses_over_the_limit() -> None:
    for expected_remaining in (2, 1, 0):
        verdict = await ratelimit.hit("unit:memory", 3, 60)
        assert verdict.remaining == expected_remaining
        assert verdict.headers()["RateLimit-Limit"] == "3"
    with pytest.raises(RateLimited) as refused:
        await ratelimit.hit("unit:memory", 3, 60)
    assert refused.value.status == 429
    assert int(refused.value.headers["Retry-After"]) >= 1  # type: ignore[index]


async def test_redis_backend_shares_counts(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from plumbline.kit.ids import new_id

    ratelimit.set_backend(ratelimit.RedisBackend("redis://127.0.0.1:6379/3"))
    key = f"unit:redis:{new_id()}"
    first = await ratelimit.hit(key, 2, 60)
    second = await ratelimit.hit(key, 2, 60)
    assert (first.remaining, second.remaining) == (1, 0)
    with pytest.raises(RateLimited):
        await ratelimit.hit(key, 2, 60)
