import asyncio

from plumbline.kit import pubsub
from plumbline.kit.ids import new_id

WAIT = 10  # seconds: a safety bound, not a timed assertion


async def test_memory_subscribers_receive_in_order():
    broker = pubsub.MemoryBroker()
    async with broker.subscribe("room:a") as first, broker.subscribe("room:a") as second:
        other = broker.subscribe("room:b")
        for n in range(3):
            await broker.publish("room:a", {"n": n})
        async with asyncio.timeout(WAIT):
            assert [(await first.next())["n"] for _ in range(3)] == [0, 1, 2]
            assert [(await second.next())["n"] for _ in range(3)] == [0, 1, 2]
        assert other.next_nowait() is None
        other.close()
    assert broker.stats.as_dict() == {
        "eventsPublished": 3,
        "eventsDelivered": 6,
        "eventsDropped": 0,
        "slowConsumersDropped": 0,
        "subscribers": 0,
    }


async def test_a_slow_consumer_is_dropped_without_blocking_others():
    broker = pubsub.MemoryBroker()
    slow = broker.subscribe("room", maxsize=2)
    fast = broker.subscribe("room", maxsize=100)
    for n in range(5):
        await broker.publish("room", {"n": n})
    assert slow.dropped
    try:
        await slow.next()
        raise AssertionError("a dropped subscription must end")
    except pubsub.SubscriptionClosed:
        pass
    assert [e["n"] async for e in _take(fast, 5)] == [0, 1, 2, 3, 4]
    assert broker.stats.slow_consumers_dropped == 1
    assert broker.stats.subscribers == 1
    fast.close()


async def test_iteration_ends_when_dropped_and_timeout_returns_none():
    broker = pubsub.MemoryBroker()
    subscription = broker.subscribe("room", maxsize=1)
    assert await subscription.next(timeout=0.01) is None
    await broker.publish("room", {"n": 1})
    await broker.publish("room", {"n": 2})
    assert [e async for e in subscription] == []


async def test_redis_brokers_share_channels_across_instances(redis_url):
    prefix = f"test-{new_id()}"
    one = pubsub.RedisBroker(redis_url, prefix)
    two = pubsub.RedisBroker(redis_url, prefix)
    elsewhere = pubsub.RedisBroker(redis_url, f"test-{new_id()}")
    try:
        async with (
            one.subscribe("room") as a,
            two.subscribe("room") as b,
            elsewhere.subscribe("room") as c,
        ):
            await one.publish("room", {"n": 1})
            await two.publish("room", {"n": 2})
            async with asyncio.timeout(WAIT):
                assert [(await a.next())["n"] for _ in range(2)] == [1, 2]
                assert [(await b.next())["n"] for _ in range(2)] == [1, 2]
            # another prefix is another namespace
            assert await c.next(timeout=0.2) is None
        assert one.stats.events_published == 1 and one.stats.events_delivered == 2
    finally:
        for broker in (one, two, elsewhere):
            await broker.close()


async def test_module_level_publish_uses_the_configured_broker():
    pubsub.set_broker(pubsub.MemoryBroker())
    try:
        async with pubsub.subscribe("x") as subscription:
            await pubsub.publish("x", {"ok": True})
            assert subscription.next_nowait() == {"ok": True}
            stats = pubsub.stats()
            assert stats["backend"] == "memory" and stats["channels"] == 1
    finally:
        pubsub.set_broker(None)


async def _take(subscription, count):
    async with asyncio.timeout(WAIT):
        for _ in range(count):
            yield await subscription.next()
