"""Stopping on SIGTERM through real processes: a request in flight finishes, a co-viewing stream
gets ``server_closing`` before the server stops, a worker finishes the job in hand and takes
no other."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
from sqlalchemy import select

from plumbline.db import UnitOfWork, database
from plumbline.jobs import enqueue
from plumbline.models import Job
from tests.factories import World
from tests.file.helpers import complete, presign, sha
from tests.jobs.record import runs
from tests.live import LiveServer
from tests.viewer.helpers import EventStream, create_file_version, live_client

WAIT = 120  # seconds: a guard against a hang, never a measurement


def receive_queues(port: int) -> list[int]:
    """The bytes waiting unread in each established connection to ``port`` on this machine
    (``/proc/net/tcp``): 0 once the server has read what was sent."""
    queues = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].split(":")[1], 16)
        if local_port == port and fields[3] == "01":  # ESTABLISHED, the server's side
            queues.append(int(fields[4].split(":")[1], 16))
    return queues


async def test_a_request_in_flight_when_the_server_is_stopped_finishes(
    client: httpx.AsyncClient, world: World
) -> None:
    data = os.urandom(3 * 1024 * 1024)
    target = await presign(client, world.member.headers, world.project.id, "slow.pdf", len(data))
    assert target.status_code == 200, target.text
    path = httpx.URL(target.json()["uploadUrl"]).raw_path.decode()
    with LiveServer(serve=True) as server:
        process = server.process
        assert process is not None
        sent_half = asyncio.Event()
        stopped = asyncio.Event()

        async def body() -> AsyncIterator[bytes]:
            yield data[: len(data) // 2]
            sent_half.set()
            await stopped.wait()
            yield data[len(data) // 2 :]

        async def stop_midway() -> None:
            await sent_half.wait()
            async with asyncio.timeout(WAIT):  # the server has read the headers and half
                while receive_queues(server.port) != [0]:
                    await asyncio.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            stopped.set()

        async with httpx.AsyncClient(base_url=server.url, timeout=WAIT) as live:
            put, _ = await asyncio.gather(
                live.put(path, content=body(), headers={"Content-Type": "application/pdf"}),
                stop_midway(),
            )
        assert put.status_code == 200, put.text
        assert process.wait(timeout=WAIT) == 0
        # A new connection finds no server.
        try:
            httpx.get(f"{server.url}/api/v1/health", timeout=5)
            raise AssertionError("the server still answers after SIGTERM")
        except httpx.TransportError:
            pass
    done = await complete(client, world.member.headers, target.json()["uploadId"], sha(data))
    assert done.status_code == 200, done.text
    assert done.json()["sizeBytes"] == len(data)


async def test_a_coviewing_stream_gets_server_closing_when_the_server_stops(
    world: World,
) -> None:
    version = await create_file_version(world.project)
    url = f"/api/v1/file-versions/{version.id}/viewer-collab/events"
    with LiveServer(serve=True) as server:
        assert server.process is not None
        async with (
            live_client(server.url) as live,
            EventStream(live, url, world.member.headers) as stream,
        ):
            hello = await stream.expect("hello")
            await stream.expect("presence")
            server.process.send_signal(signal.SIGTERM)
            rest = await stream.until_closed()
        assert rest[-1:] == ["server_closing"], rest
        assert stream.seen[-1][1] == {"reconnect": True}
        assert server.process.wait(timeout=WAIT) == 0
    assert hello["connectionId"]


async def test_a_worker_asked_to_stop_finishes_its_job_and_takes_no_other(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.txt"
    async with database.sessionmaker() as session:
        uow = UnitOfWork(session)
        slow = enqueue(uow, "tests.slow", {"path": str(path), "n": 1})
        after = enqueue(uow, "tests.record", {"path": str(path), "n": 2})
        await session.commit()  # queued only: no inline run in this process
    worker = subprocess.Popen(
        [sys.executable, "-m", "plumbline.cli", "worker", "--include", "tests.jobs.record"],
        env={**os.environ, "PLUMBLINE_JOBS": "worker", "NO_COLOR": "1"},
        stdout=subprocess.DEVNULL,
    )
    try:
        started = Path(f"{path}.started")
        async with asyncio.timeout(WAIT):
            while not started.exists():
                await asyncio.sleep(0.05)
        worker.send_signal(signal.SIGTERM)
        Path(f"{path}.go").write_text("go")  # the job in hand may now end
        assert await asyncio.to_thread(worker.wait, WAIT) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
    assert [n for n, _ in runs(path)] == [1]
    async with database.sessionmaker() as db:
        rows = dict(
            (await db.execute(select(Job.id, Job.status).where(Job.id.in_([slow.id, after.id]))))
            .tuples()
            .all()
        )
    assert rows == {slow.id: "done", after.id: "queued"}
