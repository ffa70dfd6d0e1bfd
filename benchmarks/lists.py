"""The proposals list and the inspection-runs list against the issue list, per row, same run.

``python -m benchmarks.lists`` (PostgreSQL on 127.0.0.1:5432 and wrk). One project holds
``BENCH_LIST_ROWS`` (1,000) issues, as many proposals and as many inspection runs (each filled as
a real one is: items, amounts, results); one API key reads the three lists. Each list is asked
for one page of all its rows (``limit`` = the row count), so the three answer the same number of
rows with the same page size and a ratio of requests (or of CPU per request) is a ratio of the
cost per row. Printed:

- the SQL statements of each list's request, counted in process (the issue list's are the bar:
  the credential with its access check, the rows, and a related collection at most);
- CPU per request in process, one request at a time, the three lists' batches interleaved
  (``BENCH_CPU_BATCHES`` of ``BENCH_LIST_REQUESTS``): the ratio of the smallest batches
  (issue list / other list; 1.00 is the issue list's cost per row, the target is 0.9);
- requests/s of each under wrk, one server, the same run: the ratio of those.
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import time
from typing import Any

import httpx
import orjson

from benchmarks.harness import check_main, describe, fresh_database, report, seed, serve, wrk

ROWS = int(os.environ.get("BENCH_LIST_ROWS", "1000"))
BATCHES = int(os.environ.get("BENCH_CPU_BATCHES", "9"))
REQUESTS = int(os.environ.get("BENCH_LIST_REQUESTS", "20"))
TARGET = 0.9
LISTS = {
    "issues": "issues",
    "proposals": "proposals",
    "inspection runs": "om/inspection-runs",
}


async def get(app: Any, path: str, key: str, query: str = "") -> tuple[int, bytes]:
    """One GET straight through the ASGI app: its status and body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query.encode(),
        "headers": [(b"host", b"127.0.0.1"), (b"x-api-key", key.encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    status: list[int] = []
    body: list[bytes] = []

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()  # the client never disconnects
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        else:
            body.append(message.get("body", b""))

    await app(scope, receive, send)
    return status[0], b"".join(body)


def _paths(seeded: dict[str, str]) -> dict[str, str]:
    return {name: f"/api/v1/projects/{seeded['projectId']}/{p}" for name, p in LISTS.items()}


async def _in_process(seeded: dict[str, str]) -> dict[str, Any]:
    """Statements per request of each list, then CPU µs per request, batches interleaved."""
    from sqlalchemy import event

    from plumbline.app import create_app
    from plumbline.db import database

    app = create_app()
    paths, key, query = _paths(seeded), seeded["key"], f"limit={ROWS}"
    statements: list[str] = []

    def count(conn: object, cursor: object, statement: str, *args: object) -> None:
        statements.append(statement)

    counts = {}
    for name, path in paths.items():
        for _ in range(3):  # caches, pools, prepared statements
            status, body = await get(app, path, key, query)
            assert status == 200 and len(orjson.loads(body)) == ROWS, (name, status, body[:300])
        event.listen(database.engine.sync_engine, "before_cursor_execute", count)
        statements.clear()
        await get(app, path, key, query)
        event.remove(database.engine.sync_engine, "before_cursor_execute", count)
        counts[name] = len(statements)
    gc.collect()
    gc.freeze()  # as the app's lifespan does
    batches: dict[str, list[float]] = {name: [] for name in paths}
    for batch in range(BATCHES):
        order = list(paths) if batch % 2 == 0 else list(reversed(paths))
        for name in order:
            started = time.process_time()
            for _ in range(REQUESTS):
                await get(app, paths[name], key, query)
            batches[name].append((time.process_time() - started) / REQUESTS * 1e6)
    await database.dispose()
    return {"statements": counts, "cpu": batches}


def main() -> None:
    if len(sys.argv) == 2 and sys.argv[1] == "--in-process":  # in its own process
        import uvloop

        seeded = orjson.loads(os.environ["BENCH_SEEDED"])
        print(orjson.dumps(uvloop.run(_in_process(seeded))).decode())
        return
    describe(f"lists benchmark: {ROWS} issues, proposals and inspection runs, one page each")
    with fresh_database("lists") as env:
        raw = seed(env, "lists", ROWS)
        seeded = orjson.loads(raw)
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.lists", "--in-process"],
            env={**env, "BENCH_SEEDED": raw},
            capture_output=True,
            check=True,
        ).stdout.decode()
        measured = orjson.loads(out.strip().splitlines()[-1])
        headers = {"x-api-key": seeded["key"]}
        results = {}
        with serve("plumbline.app:create_app", env, factory=True) as base_url:
            for name, path in _paths(seeded).items():
                url = f"{base_url}{path}?limit={ROWS}"
                check = httpx.get(url, headers=headers, timeout=30)
                assert check.status_code == 200 and len(check.json()) == ROWS, check.text[:300]
                results[name] = wrk(url, headers)
    cpu, counts = measured["cpu"], measured["statements"]
    print(f"\nIn process, {BATCHES} batches of {REQUESTS} requests, {ROWS} rows a page:")
    print(f"  {'list':16} {'statements':>10} {'CPU µs min':>11} {'µs per row':>11} {'ratio':>6}")
    bar = min(cpu["issues"])
    for name in LISTS:
        least = min(cpu[name])
        print(
            f"  {name:16} {counts[name]:>10} {least:>11.0f} {least / ROWS:>11.2f}"
            f" {bar / least:>6.2f}"
        )
    print(f"  ratio: issue list's CPU per row / the list's (target {TARGET})", flush=True)
    for name in ("proposals", "inspection runs"):
        report(
            f"GET /{LISTS[name]} against GET /issues, {ROWS} rows each",
            results[name],
            results["issues"],
            TARGET,
            name,
        )


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(
        __name__, {"BENCH_LIST_ROWS": "5", "BENCH_CPU_BATCHES": "1", "BENCH_LIST_REQUESTS": "1"}
    )


if __name__ == "__main__":
    main()
