"""Deliveries to a real receiver on 127.0.0.1: signed as Standard Webhooks says (verified with
the ``standardwebhooks`` package), retried with the same id, both secrets during a rotation,
never for a rolled-back write, refused for private addresses at delivery too."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from sqlalchemy import update
from standardwebhooks.webhooks import WebhookVerificationError

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Webhook
from plumbline.webhook.dispatch import skipped_var
from tests.factories import World
from tests.webhook.receiver import Receiver
from tests.webhook.support import create_webhook, deliveries, emit, event, run_pending, url

CRON = {"x-service-cron-secret": "test-cron-secret"}


@pytest.fixture(autouse=True)
def _loopback_receivers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The receivers here listen on 127.0.0.1; waits of a second between attempts."""
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    monkeypatch.setattr(settings, "webhook_retry_seconds", "1")


async def test_a_receiver_failing_twice_gets_one_event_id_three_times_each_signed(
    client: httpx.AsyncClient, world: World
) -> None:
    start = clock.now()
    clock.set_now(start)
    with Receiver(500, 503, 200) as receiver:
        hook = await create_webhook(client, world, receiver.url)
        sent = event(world.project, "issue.created")
        await emit(sent)  # the first attempt runs once the write commits
        for step in (1, 2):  # each retry is due a second later (jitter within 10 %)
            clock.set_now(start + timedelta(seconds=2 * step))
            answer = await client.post("/api/v1/internal/maintenance", headers=CRON)
            assert answer.status_code == 200
    assert receiver.ids() == [sent.id] * 3
    for received in receiver.received:
        assert received.path == "/hooks/plumbline"
        assert received.verify(hook["secret"]) == sent.body()
        assert received.headers["content-type"] == "application/json"
    [delivery] = await deliveries(client, world, hook["id"])
    assert (delivery["id"], delivery["status"], delivery["eventType"]) == (
        sent.id,
        "delivered",
        "issue.created",
    )
    assert delivery["payload"] == sent.body()
    codes = [(a["statusCode"], a["error"]) for a in delivery["attempts"]]
    assert codes == [(500, "HTTP 500"), (503, "HTTP 503"), (200, None)]
    assert all(a["durationMs"] >= 0 and a["response"] == "ok" for a in delivery["attempts"])
    assert delivery["deliveredAt"] is not None and delivery["nextAttemptAt"] is None


async def test_during_a_rotation_both_secrets_sign_then_only_the_new_one(
    client: httpx.AsyncClient, world: World
) -> None:
    start = clock.now()
    clock.set_now(start)
    with Receiver() as receiver:
        hook = await create_webhook(client, world, receiver.url)
        rotated = await client.post(
            url(world, f"/{hook['id']}/rotate-secret"), headers=world.admin.headers
        )
        old, new = hook["secret"], rotated.json()["secret"]
        await emit(event(world.project))
        [during] = receiver.received
        assert len(during.headers["webhook-signature"].split(" ")) == 2
        assert during.verify(old) == during.verify(new)  # a receiver on either secret accepts
        async with database.sessionmaker() as db:  # the 24 hours are over
            await db.execute(
                update(Webhook)
                .where(Webhook.id == hook["id"])
                .values(previous_secret_expires_at=start - timedelta(seconds=1))
            )
            await db.commit()
        await emit(event(world.project))
    after = receiver.received[1]
    assert len(after.headers["webhook-signature"].split(" ")) == 1
    assert after.verify(new) is not None
    with pytest.raises(WebhookVerificationError):
        after.verify(old)


async def test_a_name_resolving_to_loopback_is_refused_at_delivery(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Receiver() as receiver:
        hook = await create_webhook(client, world, f"http://localhost:{receiver.port}/in")
        monkeypatch.setattr(settings, "webhooks_allow_private", False)  # saved while allowed
        await emit(event(world.project))
    assert receiver.received == []
    [delivery] = await deliveries(client, world, hook["id"])
    [attempt] = delivery["attempts"]
    assert delivery["status"] == "pending" and attempt["statusCode"] is None
    assert attempt["error"].startswith("Refused: localhost resolves to ")
    assert attempt["error"].endswith("a loopback address")


async def test_a_rolled_back_write_sends_nothing_and_unsubscribed_events_go_nowhere(
    client: httpx.AsyncClient, world: World
) -> None:
    with Receiver() as receiver:
        hook = await create_webhook(client, world, receiver.url, events=("rfi.answered",))
        await emit(event(world.project, "rfi.answered"), fail=True)
        await emit(event(world.project, "issue.created"))  # not subscribed
        paused = await create_webhook(client, world, receiver.url, events=("rfi.answered",))
        await client.patch(
            url(world, f"/{paused['id']}"), json={"active": False}, headers=world.admin.headers
        )
        kept = event(world.project, "rfi.answered")
        await emit(kept)
    assert receiver.ids() == [kept.id]  # once: the paused webhook got nothing
    assert [d["id"] for d in await deliveries(client, world, hook["id"])] == [kept.id]
    assert await deliveries(client, world, paused["id"]) == []


async def test_the_skipped_webhook_is_not_notified(client: httpx.AsyncClient, world: World) -> None:
    with Receiver() as receiver:
        skipped = await create_webhook(client, world, receiver.url)
        other = await create_webhook(client, world, receiver.url)
        token = skipped_var.set(frozenset({skipped["id"]}))
        try:
            await emit(event(world.project))
        finally:
            skipped_var.reset(token)
    assert len(receiver.received) == 1
    assert receiver.received[0].verify(other["secret"]) is not None
    assert await deliveries(client, world, skipped["id"]) == []


async def test_a_later_change_of_a_record_waits_for_the_earlier_one(
    client: httpx.AsyncClient, world: World
) -> None:
    """Per webhook and record: the second change is not sent while the first is retried; a
    change of another record is not held up."""
    start = clock.now()
    clock.set_now(start)
    with Receiver(500, 200) as receiver:
        hook = await create_webhook(client, world, receiver.url)
        created = event(world.project, "issue.created", resource_id="issue-1")
        updated = event(world.project, "issue.updated", resource_id="issue-1")
        await emit(created, updated)
        assert receiver.ids() == [created.id]  # failed; the update waits behind it
        elsewhere = event(world.project, "issue.created", resource_id="issue-2")
        await emit(elsewhere)
        assert receiver.ids() == [created.id, elsewhere.id]
        clock.set_now(start + timedelta(seconds=2))
        await run_pending(hook["id"])
    assert receiver.ids() == [created.id, elsewhere.id, created.id, updated.id]
    statuses = {d["id"]: d["status"] for d in await deliveries(client, world, hook["id"])}
    assert set(statuses.values()) == {"delivered"} and len(statuses) == 3


async def test_a_redirect_is_a_failed_attempt_and_is_not_followed(
    client: httpx.AsyncClient, world: World
) -> None:
    with Receiver(302) as receiver:
        hook = await create_webhook(client, world, receiver.url)
        await emit(event(world.project))
    assert len(receiver.received) == 1
    [delivery] = await deliveries(client, world, hook["id"])
    assert delivery["attempts"][0]["error"] == "HTTP 302: redirects are not followed"
    assert delivery["status"] == "pending" and delivery["nextAttemptAt"] is not None


async def test_the_test_event_and_a_redelivery_go_the_same_way(
    client: httpx.AsyncClient, world: World
) -> None:
    with Receiver() as receiver:
        hook = await create_webhook(client, world, receiver.url, events=("rfi.closed",))
        tested = await client.post(url(world, f"/{hook['id']}/test"), headers=world.admin.headers)
        assert tested.status_code == 200
        assert (tested.json()["status"], tested.json()["eventType"]) == ("pending", "webhook.test")
        [first] = receiver.received
        assert first.id == tested.json()["id"]
        assert first.verify(hook["secret"])["data"] == {  # type: ignore[index]
            "webhookId": hook["id"],
            "message": "A test event from Plumbline",
        }
        again = await client.post(
            url(world, f"/{hook['id']}/deliveries/{first.id}/redeliver"),
            headers=world.admin.headers,
        )
        assert again.status_code == 200 and again.json()["id"] == first.id
    assert receiver.ids() == [first.id, first.id]
    assert receiver.received[1].body == first.body  # the same bytes, signed anew
    [delivery] = await deliveries(client, world, hook["id"], status="delivered")
    assert len(delivery["attempts"]) == 2
    assert await deliveries(client, world, hook["id"], status="pending") == []
    missing = await client.post(
        url(world, f"/{hook['id']}/deliveries/nope/redeliver"), headers=world.admin.headers
    )
    assert missing.status_code == 404


async def test_deliveries_are_listed_newest_first_a_page_at_a_time(
    client: httpx.AsyncClient, world: World
) -> None:
    with Receiver() as receiver:
        hook = await create_webhook(client, world, receiver.url)
        sent = [event(world.project) for _ in range(3)]
        await emit(*sent)
    first = await client.get(
        url(world, f"/{hook['id']}/deliveries"), params={"limit": 2}, headers=world.admin.headers
    )
    assert [d["id"] for d in first.json()] == [sent[2].id, sent[1].id]
    rest = await client.get(first.links["next"]["url"], headers=world.admin.headers)
    assert [d["id"] for d in rest.json()] == [sent[0].id]
    bad = await client.get(
        url(world, f"/{hook['id']}/deliveries"),
        params={"status": "lost"},
        headers=world.admin.headers,
    )
    assert bad.status_code == 400
