"""CPU time per request of POST /api/v1/projects/{p}/issues, in process, against the baseline.

``python -m benchmarks.cpu`` (needs PostgreSQL on 127.0.0.1:5432). Each app is driven straight
through ASGI, one request at a time, on one event loop: no HTTP server, no load generator, so
the figure is the CPU this process spends per request (the database's own work is not in it).
It is what bounds a single worker's throughput under wrk, and it moves far less with the
machine's load than requests/s do. Prints the smallest and the median of BENCH_CPU_BATCHES
batches of BENCH_CPU_REQUESTS requests each (a batch interrupted by other work only gets
slower, so the smallest is the closest to the true cost).
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import orjson

from benchmarks.harness import check_main, fresh_database, seed

BATCHES = int(os.environ.get("BENCH_CPU_BATCHES", "9"))
REQUESTS = int(os.environ.get("BENCH_CPU_REQUESTS", "400"))
BODY = b'{"title": "Benchmark issue", "priority": "HIGH", "location": "Level 2"}'

App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


async def _post(app: App, path: str, key: str) -> int:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"x-api-key", key.encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(BODY)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    statuses: list[int] = []
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": BODY, "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    return statuses[0]


async def _measure(app: App, path: str, key: str) -> list[float]:
    for _ in range(200):  # warm caches, pools and prepared statements
        status = await _post(app, path, key)
        assert status == 200, status
    gc.collect()
    gc.freeze()  # as the app's lifespan does
    batches = []
    for _ in range(BATCHES):
        started = time.process_time()
        for _ in range(REQUESTS):
            await _post(app, path, key)
        batches.append((time.process_time() - started) / REQUESTS * 1e6)
    return batches


@asynccontextmanager
async def served(which: str, seeded: dict[str, str]) -> AsyncIterator[tuple[App, str]]:
    """The app (``plumbline``, ``baseline`` or one of ``benchmarks.floor``'s) and its create
    path, ready for ``_post``; the connections the request needs are opened here since no
    lifespan runs in process."""
    if which == "plumbline":
        from plumbline.app import create_app

        yield create_app(), f"/api/v1/projects/{seeded.get('projectId')}/issues"
        return
    from benchmarks import baselines, floor

    apps: dict[str, tuple[App, Any]] = {
        "baseline": (baselines.issues_app, floor.pool_open),
        "fastapi+asyncpg": (floor.fastapi_asyncpg, floor.pool_open),
        "asgi+sqlalchemy": (floor.asgi_sqlalchemy, floor.engine_open),
        "fastapi+sqlalchemy": (floor.fastapi_sqlalchemy, floor.engine_open),
    }
    app, opened = apps[which]
    async with opened():
        yield app, f"/projects/{seeded['projectId']}/issues"


async def _run(which: str, seeded: dict[str, str]) -> list[float]:
    async with served(which, seeded) as (app, path):
        return await _measure(app, path, seeded["key"])


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":  # one side, in its own process
        import uvloop

        seeded = orjson.loads(os.environ["BENCH_SEEDED"])
        print(orjson.dumps(uvloop.run(_run(sys.argv[2], seeded))).decode())
        return
    print(
        f"CPU per request, in process: POST /api/v1/projects/{{p}}/issues, {BATCHES} batches "
        f"of {REQUESTS} requests, one at a time",
        flush=True,
    )
    with fresh_database("cpu") as env:
        seeded = seed(env, "issues", 10)
        results = {}
        for which in ("plumbline", "baseline"):
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.cpu", "--one", which],
                env={**env, "BENCH_SEEDED": seeded},
                capture_output=True,
                check=True,
            ).stdout.decode()
            results[which] = orjson.loads(out.strip().splitlines()[-1])
    for which, batches in results.items():
        print(
            f"  {which:10} min {min(batches):7.0f} µs   median {statistics.median(batches):7.0f} µs"
        )
    ratio = min(results["baseline"]) / min(results["plumbline"])
    print(f"  CPU ratio (baseline / plumbline, smallest batches): {ratio:.2f}", flush=True)


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_CPU_BATCHES": "1", "BENCH_CPU_REQUESTS": "2"})


if __name__ == "__main__":
    main()
