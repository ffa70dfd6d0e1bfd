"""Deliveries of real writes to a real receiver on 127.0.0.1: signed as Standard Webhooks says
(verified with the ``standardwebhooks`` package), retried with the same id, both secrets during
a rotation, never for a refused write, refused for private addresses at delivery too."""

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
from tests.factories import World
from tests.webhook.receiver import Receiver
from tests.webhook.support import (
    create_issue,
    create_webhook,
    deliveries,
    event_ids,
    run_pending,
    update_issue,
    url,
)

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
        issue = await create_issue(client, world)  # the first attempt follows the response
        [sent] = await event_ids(world, issue["id"])
        for step in (1, 2):  # each retry is due a second later (jitter within 10 %)
            clock.set_now(start + timedelta(seconds=2 * step))
            answer = await client.post("/api/v1/internal/maintenance", headers=CRON)
            assert answer.status_code == 200
    assert receiver.ids() == [sent] * 3
    for received in receiver.received:
        assert received.path == "/hooks/plumbline"
        body = received.verify(hook["secret"])
        assert (body["id"], body["type"], body["data"]) == (sent, "issue.created", issue)
        assert body["actor"] == {"type": "user", "id": world.member.id}
        assert received.headers["content-type"] == "application/json"
    [delivery] = await deliveries(client, world, hook["id"])
    assert (delivery["id"], delivery["status"], delivery["eventType"]) == (
        sent,
        "delivered",
        "issue.created",
    )
    assert delivery["payload"] == body and delivery["resourceId"] == issue["id"]
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
        await create_issue(client, world)
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
        await create_issue(client, world)
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
        await create_issue(client, world)
    assert receiver.received == []
    [delivery] = await deliveries(client, world, hook["id"])
    [attempt] = delivery["attempts"]
    assert delivery["status"] == "pending" and attempt["statusCode"] is None
    assert attempt["error"].startswith("Refused: localhost resolves to ")
    assert attempt["error"].endswith("a loopback address")


async def test_a_refused_write_sends_nothing_and_unsubscribed_events_go_nowhere(
    client: httpx.AsyncClient, world: World
) -> None:
    with Receiver() as receiver:
        issue = await create_issue(client, world)  # before any webhook: nothing to send
        hook = await create_webhook(client, world, receiver.url, events=("issue.updated",))
        refused = await update_issue(client, world, issue["id"], assigneeId="nobody")
        assert refused.status_code == 400  # rolled back: no event, no delivery
        await create_issue(client, world)  # not subscribed
        paused = await create_webhook(client, world, receiver.url, events=("issue.updated",))
        await client.patch(
            url(world, f"/{paused['id']}"), json={"active": False}, headers=world.admin.headers
        )
        changed = await update_issue(client, world, issue["id"], priority="HIGH")
        assert changed.status_code == 200
    [_, updated] = await event_ids(world, issue["id"])
    assert receiver.ids() == [updated]  # once: the paused webhook got nothing
    assert receiver.received[0].verify(hook["secret"])["data"] == changed.json()
    assert [d["id"] for d in await deliveries(client, world, hook["id"])] == [updated]
    assert await deliveries(client, world, paused["id"]) == []


async def test_a_write_skipping_a_webhook_does_not_notify_it(
    client: httpx.AsyncClient, world: World
) -> None:
    """An integration writing back names its own webhook(s): no echo of its own change."""
    with Receiver() as receiver:
        mine = await create_webhook(client, world, receiver.url)
        other = await create_webhook(client, world, receiver.url)
        skip = {"X-Plumbline-Skip-Webhooks": mine["id"]}
        issue = await create_issue(client, world, headers=skip)
        assert receiver.received[0].verify(other["secret"])["data"] == issue
        both = {"X-Plumbline-Skip-Webhooks": f"{mine['id']}, {other['id']}"}
        await create_issue(client, world, headers=both)
        await create_issue(client, world)  # the header held for its request only
    assert len(receiver.received) == 3
    assert len(await deliveries(client, world, mine["id"])) == 1
    assert len(await deliveries(client, world, other["id"])) == 2


async def test_a_later_change_of_a_record_waits_for_the_earlier_one(
    client: httpx.AsyncClient, world: World
) -> None:
    """Per webhook and record: the second change is not sent while the first is retried; a
    change of another record is not held up."""
    start = clock.now()
    clock.set_now(start)
    with Receiver(500, 200) as receiver:
        hook = await create_webhook(client, world, receiver.url)
        issue = await create_issue(client, world)
        [created] = await event_ids(world, issue["id"])
        assert receiver.ids() == [created]  # failed: the next change of the issue waits
        moved = await update_issue(client, world, issue["id"], status="IN_PROGRESS")
        assert moved.status_code == 200
        [_, updated] = await event_ids(world, issue["id"])
        assert receiver.ids() == [created]
        other = await create_issue(client, world)
        [elsewhere] = await event_ids(world, other["id"])
        assert receiver.ids() == [created, elsewhere]
        clock.set_now(start + timedelta(seconds=2))
        await run_pending(hook["id"])
    assert receiver.ids() == [created, elsewhere, created, updated]
    statuses = {d["id"]: d["status"] for d in await deliveries(client, world, hook["id"])}
    assert set(statuses.values()) == {"delivered"} and len(statuses) == 3


async def test_a_redirect_is_a_failed_attempt_and_is_not_followed(
    client: httpx.AsyncClient, world: World
) -> None:
    with Receiver(302) as receiver:
        hook = await create_webhook(client, world, receiver.url)
        await create_issue(client, world)
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
        issues = [await create_issue(client, world, title=f"Issue {n}") for n in range(3)]
    sent = [(await event_ids(world, issue["id"]))[0] for issue in issues]
    first = await client.get(
        url(world, f"/{hook['id']}/deliveries"), params={"limit": 2}, headers=world.admin.headers
    )
    assert [d["id"] for d in first.json()] == [sent[2], sent[1]]
    rest = await client.get(first.links["next"]["url"], headers=world.admin.headers)
    assert [d["id"] for d in rest.json()] == [sent[0]]
    bad = await client.get(
        url(world, f"/{hook['id']}/deliveries"),
        params={"status": "lost"},
        headers=world.admin.headers,
    )
    assert bad.status_code == 400


async def test_finished_deliveries_are_purged_with_the_events(
    client: httpx.AsyncClient, world: World
) -> None:
    """Kept as long as the change feed keeps events after they finished."""
    start = clock.now()
    clock.set_now(start)
    with Receiver(200, 500) as receiver:
        hook = await create_webhook(client, world, receiver.url)
        await create_issue(client, world)  # delivered
        second = await create_issue(client, world)  # failed once: pending
    [kept] = await event_ids(world, second["id"])
    assert {d["status"] for d in await deliveries(client, world, hook["id"])} == {
        "delivered",
        "pending",
    }
    clock.set_now(start + timedelta(days=settings.event_retention_days, hours=1))
    answer = await client.post("/api/v1/internal/maintenance", headers=CRON)
    assert "webhooks.purge_deliveries" in answer.json()["queued"]
    clock.set_now(start)  # the test users' sessions would have expired by then
    # The pending one was tried once more then, past its 3 days: given up now, so kept.
    [left] = await deliveries(client, world, hook["id"])
    assert (left["id"], left["status"]) == (kept, "failed")
