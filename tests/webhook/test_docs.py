"""The Python receiver of docs/integrations.md, run as written: it verifies a real delivery and
refuses a forged one."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import orjson
import pytest

from plumbline.config import settings
from tests.factories import World
from tests.live import free_port
from tests.webhook.support import create_issue, create_webhook, deliveries, event_ids

DOCS = Path(__file__).parents[2] / "docs" / "integrations.md"
GUARD = 60  # seconds: a bound on a hang, never a measurement


def _python_receiver() -> str:
    text = DOCS.read_text()
    section = text[text.index("### Receivers that verify the signature") :]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found.group(1)


def _wait_for(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the receiver did not start")


async def test_the_documented_python_receiver_verifies_a_delivery(
    client: httpx.AsyncClient, world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    port = free_port()
    script = tmp_path / "receiver.py"
    script.write_text(_python_receiver())
    hook = await create_webhook(client, world, f"http://127.0.0.1:{port}/plumbline")
    env = {**os.environ, "WEBHOOK_SECRET": hook["secret"], "PORT": str(port)}
    receiver = subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        await asyncio.to_thread(_wait_for, port, receiver)
        issue = await create_issue(client, world)
        forged = await asyncio.to_thread(
            httpx.post,
            f"http://127.0.0.1:{port}/plumbline",
            content=b'{"id": "x", "type": "issue.deleted"}',
            headers={"webhook-id": "x", "webhook-timestamp": "1", "webhook-signature": "v1,AAAA"},
        )
    finally:
        receiver.terminate()
        out, _ = receiver.communicate(timeout=GUARD)
    [sent] = await event_ids(world, issue["id"])
    assert [orjson.loads(line) for line in out.splitlines()] == [
        {"id": sent, "type": "issue.created"}
    ]
    assert forged.status_code == 400
    [delivery] = await deliveries(client, world, hook["id"])
    assert delivery["status"] == "delivered" and delivery["attempts"][0]["statusCode"] == 204
