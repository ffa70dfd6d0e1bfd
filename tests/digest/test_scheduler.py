"""The daily jobs outside a request: when they are due, ``plumbline digests run``, and the
in-process scheduler of a real server catching up on start."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import select

from plumbline.db import database
from plumbline.digest.scheduler import next_run
from plumbline.kit import clock
from plumbline.models import DigestRun
from tests.factories import World, make_world, read_mails, set_project
from tests.live import LiveServer


def plumbline(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plumbline.cli", *args],
        env={**os.environ, "COLUMNS": "300", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
    )


async def world_with_an_old_work_order(client: httpx.AsyncClient) -> World:
    """A project in operations mode with a work order opened eight days ago (real time: the
    CLI and the server read the real clock)."""
    world = await make_world()
    await set_project(world.project.id, operations_mode=True)
    clock.set_now(datetime.now(UTC) - timedelta(days=8))
    response = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": "Stuck fire door", "issueKind": "WORK_ORDER"},
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    clock.set_now(None)
    return world


def test_the_daily_jobs_are_due_at_the_hour() -> None:
    day = datetime(2026, 2, 28, tzinfo=UTC)
    assert next_run(day.replace(hour=5, minute=59), 6) == day.replace(hour=6)
    assert next_run(day.replace(hour=6), 6) == datetime(2026, 3, 1, 6, tzinfo=UTC)
    assert next_run(day.replace(hour=23, minute=59), 0) == datetime(2026, 3, 1, tzinfo=UTC)


async def test_the_cli_runs_a_digest_once_a_day(client: httpx.AsyncClient, outbox: Path) -> None:
    world = await world_with_an_old_work_order(client)
    first = plumbline("digests", "run", "om-work-order-aging")
    assert first.returncode == 0, first.stderr
    assert "om-work-order-aging" in first.stdout
    assert len(read_mails(outbox, to=world.manager.user.email)) == 1

    again = plumbline("digests", "run", "om-work-order-aging")
    assert again.returncode == 0, again.stderr
    assert len(read_mails(outbox, to=world.manager.user.email)) == 1

    unknown = plumbline("digests", "run", "weekly-party")
    assert unknown.returncode == 2 and "Unknown digest weekly-party" in unknown.stdout


async def test_the_scheduler_catches_up_when_the_server_starts(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    from tests.digest.test_scheduler_lease import forget_daily_runs

    world = await world_with_an_old_work_order(client)
    await forget_daily_runs()  # a server of another test may have run them today
    env = {"PLUMBLINE_SCHEDULER": "on", "PLUMBLINE_DIGEST_HOUR": "0"}
    with LiveServer(env=env):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not read_mails(outbox, to=world.manager.user.email):
            time.sleep(0.5)
    assert len(read_mails(outbox, to=world.manager.user.email)) == 1
    async with database.sessionmaker() as db:
        query = select(DigestRun.kind).where(DigestRun.workspace_id == world.workspace.id)
        assert list((await db.execute(query)).scalars()) == ["om-work-order-aging"]
