"""Two ``plumbline worker`` processes on one database deliver 1,000 queued webhooks: each
exactly once, and the changes of each record in the order they were made. The changes are real
writes: 20 bulk status changes of 50 punch items (1,000 events)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections import defaultdict

import httpx
import pytest
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.models import WebhookDelivery
from tests.factories import World
from tests.webhook.receiver import Receiver
from tests.webhook.support import create_webhook, event_ids

RECORDS = 50
# Five times round the punch workflow: 20 changes of each item, 1,000 events in all.
STEPS = ("IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED", "OPEN") * 5
GUARD = 600  # seconds: a bound on a hang, never a measurement


def _worker() -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PLUMBLINE_JOBS": "worker",
        "PLUMBLINE_WEBHOOKS_ALLOW_PRIVATE": "true",
        "NO_COLOR": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "plumbline.cli", "worker"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert "worker running jobs" in process.stdout.readline()
    return process


async def _delivered(webhook_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(
            WebhookDelivery.webhook_id == webhook_id, WebhookDelivery.status == "delivered"
        )
        return int((await db.execute(query)).scalar_one())


async def test_two_workers_deliver_1000_webhooks_once_each_in_order_per_record(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    monkeypatch.setattr(settings, "jobs", "worker")  # this process only queues
    punch = f"/api/v1/projects/{world.project.id}/punch"
    items = []
    for n in range(RECORDS):
        made = await client.post(punch, json={"title": f"Item {n}"}, headers=world.manager.headers)
        assert made.status_code == 200, made.text
        items.append(made.json()["id"])
    with Receiver() as receiver:
        types = ("punch.updated", "punch.closed", "punch.reopened")
        hook = await create_webhook(client, world, receiver.url, events=types)
        for status in STEPS:  # one transaction, 50 events, each step
            changed = await client.patch(
                f"{punch}/bulk",
                json={"ids": items, "status": status},
                headers=world.manager.headers,
            )
            assert changed.status_code == 200, changed.text
            assert all(result["ok"] for result in changed.json()["results"])
        workers = [await asyncio.to_thread(_worker) for _ in range(2)]
        try:
            deadline = time.monotonic() + GUARD
            while (
                await _delivered(hook["id"]) < RECORDS * len(STEPS) and time.monotonic() < deadline
            ):
                await asyncio.sleep(0.25)
        finally:
            for worker in workers:
                worker.terminate()
            codes = [worker.wait(timeout=60) for worker in workers]
    assert codes == [0, 0]  # each finished the delivery in hand and stopped
    expected = {item: (await event_ids(world, item))[1:] for item in items}  # not created
    got = receiver.ids()
    assert len(got) == RECORDS * len(STEPS)
    assert sorted(got) == sorted(e for ids in expected.values() for e in ids)  # once each
    record_of = {e: item for item, ids in expected.items() for e in ids}
    by_record: dict[str, list[str]] = defaultdict(list)
    for event_id in got:
        by_record[record_of[event_id]].append(event_id)
    assert by_record == expected  # each item's changes in the order they were made
    first = receiver.received[0].verify(hook["secret"])
    assert first["type"] == "punch.updated" and first["data"]["status"] == "IN_PROGRESS"
