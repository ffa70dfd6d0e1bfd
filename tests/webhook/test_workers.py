"""Two ``plumbline worker`` processes on one database deliver 1,000 queued webhooks: each
exactly once, and the changes of each record in the order they were made."""

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
from tests.webhook.support import create_webhook, emit, event

RECORDS, CHANGES = 50, 20  # 1,000 deliveries
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
    with Receiver() as receiver:
        hook = await create_webhook(client, world, receiver.url)
        records = [f"issue-{n:02}" for n in range(RECORDS)]
        # Record by record in turn, as writes interleave: 0, 1, ..., 49, 0, 1, ...
        sent = [
            event(world.project, "issue.updated", resource_id=record)
            for _ in range(CHANGES)
            for record in records
        ]
        await emit(*sent)
        workers = [await asyncio.to_thread(_worker) for _ in range(2)]
        try:
            deadline = time.monotonic() + GUARD
            while await _delivered(hook["id"]) < len(sent) and time.monotonic() < deadline:
                await asyncio.sleep(0.25)
        finally:
            for worker in workers:
                worker.terminate()
            codes = [worker.wait(timeout=60) for worker in workers]
    assert codes == [0, 0]  # each finished the delivery in hand and stopped
    got = receiver.ids()
    assert len(got) == len(sent) and set(got) == {e.id for e in sent}  # each exactly once
    by_record: dict[str, list[str]] = defaultdict(list)
    record_of = {e.id: e.resource_id for e in sent}
    for event_id in got:
        by_record[record_of[event_id]].append(event_id)
    for record in records:
        assert by_record[record] == [e.id for e in sent if e.resource_id == record]
    assert [r.verify(hook["secret"])["id"] for r in receiver.received[:3]] == got[:3]
