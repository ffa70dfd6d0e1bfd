"""A receiver that keeps failing: retried with the same id until 3 days have passed, then the
delivery is given up, the webhook disabled and the project's admins told; re-enabled, it can
be sent what it missed. Time moves with the service's clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from plumbline.config import settings
from plumbline.kit import clock
from plumbline.webhook.tasks import WINDOW, retry
from tests.factories import World, audit_entries, read_mails
from tests.webhook.receiver import Receiver
from tests.webhook.support import (
    create_issue,
    create_webhook,
    deliveries,
    event_ids,
    run_pending,
    url,
)


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_a_webhook_failing_for_three_days_is_disabled_and_its_admins_told(
    client: httpx.AsyncClient, world: World, outbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    monkeypatch.setattr(settings, "webhook_retry_seconds", "86400")  # a day between attempts
    start = clock.now()
    clock.set_now(start)
    with Receiver(500) as receiver:
        hook = await create_webhook(client, world, receiver.url)
        issue = await create_issue(client, world)
        [sent] = await event_ids(world, issue["id"])
        for _ in range(10):  # a guard: 4 attempts are expected
            [delivery] = await deliveries(client, world, hook["id"])
            if delivery["status"] != "pending":
                break
            clock.set_now(_instant(delivery["nextAttemptAt"]) + timedelta(seconds=1))
            await run_pending(hook["id"])
        # At 0 h, about 24 h, 48 h (and 65 h when the jitter drew short waits), and 72 h.
        tries = len(receiver.received)
        assert receiver.ids() == [sent] * tries and tries in (4, 5)
        await create_issue(client, world)  # a disabled webhook is sent nothing
        assert len(receiver.received) == tries
    assert (delivery["status"], delivery["failedAt"] is None) == ("failed", False)
    assert clock.now() - start >= WINDOW
    disabled = (await client.get(url(world, f"/{hook['id']}"), headers=world.admin.headers)).json()
    assert disabled["active"] is False
    assert disabled["disabledReason"].startswith("Every delivery failed for 3 days")
    assert [e.action for e in await audit_entries(hook["id"])][-1] == "webhook.disabled"
    for admin in (world.owner, world.admin):  # the SUPER_ADMIN and the ADMIN
        notes = (await client.get("/api/v1/me/notifications", headers=admin.headers)).json()
        [note] = [n for n in notes if n["kind"] == "WEBHOOK_DISABLED"]
        assert receiver.url in note["title"] and note["projectId"] == world.project.id
        [mail] = read_mails(outbox, to=admin.user.email)
        assert mail["Subject"] == "A webhook was disabled"
    for other in (world.manager, world.member):
        notes = (await client.get("/api/v1/me/notifications", headers=other.headers)).json()
        assert [n for n in notes if n["kind"] == "WEBHOOK_DISABLED"] == []
    # Working again: re-enabled, then sent what it missed.
    with Receiver(200) as fixed:
        enabled = await client.patch(
            url(world, f"/{hook['id']}"),
            json={"active": True, "url": fixed.url},
            headers=world.admin.headers,
        )
        assert enabled.json()["active"] is True and enabled.json()["disabledReason"] is None
        again = await client.post(
            url(world, f"/{hook['id']}/deliveries/{sent}/redeliver"),
            headers=world.admin.headers,
        )
        assert again.status_code == 200
    assert fixed.ids() == [sent]
    assert {d["id"]: d["status"] for d in await deliveries(client, world, hook["id"])} == {
        sent: "delivered"
    }


async def test_the_schedule_is_the_standard_one_with_jitter_for_three_days(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(settings, "webhook_retry_seconds", "")
    expected = [5, 300, 1800, 7200, 18000, 36000, 36000, 36000]
    age = timedelta()
    for attempts, seconds in enumerate(expected, start=1):
        wait = retry(attempts, age)
        assert wait is not None and 0.9 * seconds <= wait.total_seconds() <= 1.1 * seconds
        age += wait
    waits = []
    while (wait := retry(len(expected) + len(waits) + 1, age)) is not None:
        waits.append(wait)
        age += wait
    assert age == WINDOW and len(waits) <= 5  # every 10 h until the last attempt at 3 days
    monkeypatch.setattr(settings, "webhook_retry_seconds", "0, 2")
    assert retry(1, timedelta()) == timedelta()
    assert 1.8 <= retry(3, timedelta()).total_seconds() <= 2.2  # type: ignore[union-attr]
