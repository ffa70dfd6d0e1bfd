"""In the embedded default (``PLUMBLINE_JOBS=inline``) the server runs queued jobs whose
(re)try time has come by itself: a failed delivery is retried with no cron and no worker."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx

from tests.factories import World
from tests.live import LiveServer
from tests.webhook.receiver import Receiver
from tests.webhook.support import event_ids

GUARD = 120  # seconds: a bound on a hang, never a measurement


async def test_the_server_retries_a_failed_delivery_by_itself(world: World, tmp_path: Path) -> None:
    env = {"PLUMBLINE_WEBHOOKS_ALLOW_PRIVATE": "true", "PLUMBLINE_WEBHOOK_RETRY_SECONDS": "1"}
    log = tmp_path / "server.log"
    with Receiver(500, 200) as receiver, LiveServer(env=env, log=log, log_level="info") as server:
        base = f"{server.url}/api/v1/projects/{world.project.id}"
        origin = {"Origin": "http://127.0.0.1:8000"}
        made = await asyncio.to_thread(
            httpx.post,
            f"{base}/webhooks",
            json={"url": receiver.url, "events": ["issue.created"]},
            headers={**world.admin.headers, **origin},
        )
        assert made.status_code == 200, made.text
        issue = await asyncio.to_thread(
            httpx.post,
            f"{base}/issues",
            json={"title": "Leak"},
            headers={**world.member.headers, **origin},
        )
        assert issue.status_code == 200, issue.text
        deadline = time.monotonic() + GUARD  # the first attempt fails, the loop retries
        while len(receiver.received) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        [sent] = await event_ids(world, issue.json()["id"])
        assert receiver.ids() == [sent, sent]
        assert receiver.received[1].verify(made.json()["secret"])["data"] == issue.json()
    # Stopped (SIGTERM), the server ended its loop and finished its shutdown.
    lines = log.read_text().splitlines()
    assert any("Application shutdown complete" in line for line in lines)
    assert not any('"level":"error"' in line or "Traceback" in line for line in lines)
