"""Background jobs: run only after a commit, exactly once across worker processes, retried
with exponential backoff."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import UnitOfWork, UoW, database
from plumbline.errors import Conflict, install_error_handlers
from plumbline.jobs import enqueue
from plumbline.jobs.runner import backoff
from plumbline.kit import clock
from plumbline.kit.responses import ORJSONResponse
from plumbline.models import Job
from plumbline.routing import make_router
from tests.jobs.record import runs


def _app() -> FastAPI:
    """Routes of the real unit-of-work route class that queue a job and then succeed or fail."""
    router = make_router()

    @router.post("/ok")
    async def ok(uow: UoW, path: str) -> ORJSONResponse:
        enqueue(uow, "tests.record", {"path": path, "n": 1})
        return ORJSONResponse({"ok": True})

    @router.post("/raises")
    async def raises(uow: UoW, path: str) -> ORJSONResponse:
        enqueue(uow, "tests.record", {"path": path, "n": 1})
        await uow.session.flush()  # the row was written, then the request fails
        raise Conflict("Changed my mind")

    @router.post("/answers-400")
    async def answers_400(uow: UoW, path: str) -> ORJSONResponse:
        enqueue(uow, "tests.record", {"path": path, "n": 1})
        return ORJSONResponse({"error": "No", "code": "BAD_REQUEST"}, status_code=400)

    @router.post("/fails")
    async def fails(uow: UoW, path: str, never: bool) -> ORJSONResponse:
        enqueue(uow, "tests.fails", {"path": path, "n": 1, "never": never})
        return ORJSONResponse({"ok": True})

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router)
    return app


async def _jobs_for(path: Path, name: str = "tests.record") -> list[Job]:
    async with database.sessionmaker() as db:
        rows = (await db.execute(select(Job).where(Job.name == name))).scalars()
        return [job for job in rows if job.payload.get("path") == str(path)]


async def test_jobs_of_a_rolled_back_request_never_run(tmp_path: Path) -> None:
    transport = httpx.ASGITransport(app=_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for route, status in (("/raises", 409), ("/answers-400", 400), ("/ok", 200)):
            path = tmp_path / route.strip("/")
            response = await client.post(route, params={"path": str(path)})
            assert response.status_code == status
            if status >= 400:
                assert runs(path) == [] and await _jobs_for(path) == []
            else:  # the same job from a committed request runs, once, after the response
                assert [n for n, _ in runs(path)] == [1]
                [job] = await _jobs_for(path)
                assert (job.status, job.attempts) == ("done", 1)


async def test_a_job_that_can_never_succeed_is_not_retried(tmp_path: Path) -> None:
    now = clock.now()
    clock.set_now(now)
    transport = httpx.ASGITransport(app=_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for never in (False, True):
            path = tmp_path / f"never-{never}"
            params = {"path": str(path), "never": never}
            assert (await client.post("/fails", params=params)).status_code == 200
            assert [n for n, _ in runs(path)] == [1]
            [job] = await _jobs_for(path, "tests.fails")
            if never:  # given up at once, the error kept on the row
                assert (job.status, job.attempts, job.finished_at is None) == ("failed", 1, False)
                assert job.last_error == "Permanent: This job can never succeed"
                assert [e["attempt"] for e in job.errors] == [1]
            else:  # a transient failure waits for its retry
                assert (job.status, job.attempts, job.finished_at) == ("queued", 1, None)
                assert job.run_at == now + backoff(1)


def _worker() -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "plumbline.cli", "worker", "--include", "tests.jobs.record"],
        env={**os.environ, "PLUMBLINE_JOBS": "worker", "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert "worker running jobs" in process.stdout.readline()
    return process


async def test_two_worker_processes_run_each_of_1000_jobs_exactly_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "runs.txt"
    workers = [await asyncio.to_thread(_worker) for _ in range(2)]
    try:
        monkeypatch.setattr(settings, "jobs", "worker")  # this process only queues
        async with database.sessionmaker() as session:
            uow = UnitOfWork(session)
            payloads = [{"path": str(path), "n": n} for n in range(1000)]
            ids = [enqueue(uow, "tests.record", payload).id for payload in payloads]
            await uow.commit()
        deadline = time.monotonic() + 300  # a guard against a hang, not a measurement
        while len(runs(path)) < 1000 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        async with database.sessionmaker() as db:
            done = select(func.count()).where(Job.id.in_(ids), Job.status == "done")
            while (await db.execute(done)).scalar_one() < 1000 and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
    finally:
        for worker in workers:
            worker.terminate()
        codes = [worker.wait(timeout=60) for worker in workers]
    assert codes == [0, 0]  # SIGTERM lets each finish the job in hand and exit cleanly
    ran = runs(path)
    assert sorted(n for n, _ in ran) == list(range(1000))  # every job, none twice
    assert {pid for _, pid in ran} == {worker.pid for worker in workers}  # both took a share
    async with database.sessionmaker() as db:
        rows = (await db.execute(select(Job.status, Job.attempts).where(Job.id.in_(ids)))).all()
    assert sorted(set(rows)) == [("done", 1)] and len(rows) == 1000


def test_retries_wait_twice_as_long_each_time_up_to_six_hours() -> None:
    waits = [backoff(attempts) for attempts in (1, 2, 3, 4, 11, 20)]
    assert waits == [timedelta(seconds=s) for s in (30, 60, 120, 240, 6 * 3600, 6 * 3600)]
