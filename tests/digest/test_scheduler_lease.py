"""One scheduler among many servers: each daily task is taken with a lease in the database, so
servers that all have ``PLUMBLINE_SCHEDULER=on`` run it once a day between them."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import httpx
import orjson
from sqlalchemy import delete, select

from plumbline.db import database
from plumbline.digest import lease
from plumbline.jobs import daily_tasks
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import SchedulerLease
from tests.digest.test_scheduler import world_with_an_old_work_order
from tests.factories import read_mails
from tests.live import LiveServer

DAY = date(2026, 3, 2)


async def forget_daily_runs() -> None:
    """No daily task run yet in this database (a server of an earlier test ran them today)."""
    async with database.sessionmaker() as db, db.begin():
        await db.execute(
            delete(SchedulerLease).where(SchedulerLease.name.in_(daily_tasks().values()))
        )


async def row(name: str) -> SchedulerLease:
    async with database.sessionmaker() as db:
        query = select(SchedulerLease).where(SchedulerLease.name == name)
        return (await db.execute(query)).scalar_one()


async def test_of_holders_racing_for_a_day_one_takes_the_lease() -> None:
    name = f"tests.{new_id()}"
    taken = await asyncio.gather(*(lease.take(name, DAY, holder=f"h{n}") for n in range(6)))
    assert sorted(taken) == [False] * 5 + [True]
    holder = f"h{taken.index(True)}"
    assert (await row(name)).holder == holder

    # Only the holder renews or releases it.
    assert await lease.renew(name, holder=holder)
    assert not await lease.renew(name, holder="someone-else")
    assert not await lease.release(name, DAY, holder="someone-else")
    assert await lease.release(name, DAY, holder=holder)

    # Run for the day: nobody runs it again that day, the next day someone does.
    assert await lease.done(name, DAY) and not await lease.done(name, DAY + timedelta(days=1))
    assert not await lease.take(name, DAY, holder="h9")
    assert await lease.take(name, DAY + timedelta(days=1), holder="h9")
    stored = await row(name)
    assert (stored.holder, stored.done_day) == ("h9", DAY)


async def test_a_holder_that_stops_renewing_loses_the_task_to_another() -> None:
    name = f"tests.{new_id()}"
    start = datetime(2026, 3, 2, 6, tzinfo=UTC)
    clock.set_now(start)
    assert await lease.take(name, DAY, holder="crashed")
    clock.set_now(start + lease.LEASE - timedelta(seconds=1))
    assert not await lease.take(name, DAY, holder="other")  # still held
    clock.set_now(start + lease.LEASE + timedelta(seconds=1))
    assert await lease.take(name, DAY, holder="other")
    assert not await lease.renew(name, holder="crashed")  # the first holder learns it lost it


async def test_a_failed_run_waits_before_anyone_runs_it_again() -> None:
    name = f"tests.{new_id()}"
    start = datetime(2026, 3, 2, 6, tzinfo=UTC)
    clock.set_now(start)
    assert await lease.take(name, DAY, holder="a")
    assert await lease.release(name, None, holder="a")
    assert not await lease.done(name, DAY)
    clock.set_now(start + lease.RETRY - timedelta(seconds=1))
    assert not await lease.take(name, DAY, holder="b")
    clock.set_now(start + lease.RETRY + timedelta(seconds=1))
    assert await lease.take(name, DAY, holder="b")


def ran(logs: list[Path]) -> list[str]:
    """The daily tasks the servers logged as run, one entry per run."""
    kinds = []
    for log in logs:
        for line in log.read_text().splitlines():
            if line.startswith("{") and '"daily job ran"' in line:
                kinds.append(orjson.loads(line)["job"])
    return sorted(kinds)


async def test_two_servers_with_the_scheduler_run_each_daily_task_once(
    client: httpx.AsyncClient, outbox: Path, tmp_path: Path
) -> None:
    world = await world_with_an_old_work_order(client)
    await forget_daily_runs()
    env = {"PLUMBLINE_SCHEDULER": "on", "PLUMBLINE_DIGEST_HOUR": "0", "PLUMBLINE_LOG_LEVEL": "INFO"}
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    today = datetime.now(UTC).date()
    names = list(daily_tasks().values())
    with LiveServer(env=env, log=logs[0]), LiveServer(env=env, log=logs[1]):
        deadline = time.monotonic() + 120  # a guard against a hang, not a measurement
        while time.monotonic() < deadline and not all(
            [await lease.done(name, today) for name in names]
        ):
            await asyncio.sleep(0.3)
    assert ran(logs) == sorted(daily_tasks())  # each task once, by one server or the other
    assert len(read_mails(outbox, to=world.manager.user.email)) == 1
    for name in names:
        assert (await row(name)).holder is None  # released once run

    # A server started later the same day runs nothing again.
    later = tmp_path / "c.log"
    with LiveServer(env=env, log=later) as server:
        httpx.get(f"{server.url}/api/v1/health", timeout=30)
    assert ran([later]) == []
