"""What conditional requests cost: an issue GET with and without ``If-None-Match``, and an
issue PATCH with and without ``If-Match``, in process, on PostgreSQL.

``python -m benchmarks.conditional`` (needs PostgreSQL on 127.0.0.1:5432). The app is driven
straight through ASGI, one request at a time (as ``benchmarks.cpu``), with an API key: no HTTP
server, no load generator, so the wall time per request is the app's work plus its database
round trips. Batches of each pair alternate (BENCH_COND_BATCHES of BENCH_COND_REQUESTS), and
the ratios of their medians are printed: conditional / plain wall time per request, and CPU
time of this process per request (steadier on a shared machine; the database's work is not in
it). 1.00 is free.

- GET: the same read, plain; with ``If-None-Match`` holding the current tag (304, no body);
  with one holding another tag (200, the body).
- PATCH: a new title each time, plain; with ``If-Match`` holding the tag the previous PATCH
  answered (the conditional write first takes the path's advisory lock and reads the issue as
  the GET does, in its own transaction).
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from benchmarks.harness import check_main, fresh_database, seed

BATCHES = int(os.environ.get("BENCH_COND_BATCHES", "7"))
REQUESTS = int(os.environ.get("BENCH_COND_REQUESTS", "200"))

App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]
Answer = tuple[int, dict[str, str], bytes]


async def _call(
    app: App, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> Answer:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-length", str(len(body)).encode()),
            *((name.lower().encode(), value.encode()) for name, value in headers.items()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    started: dict[str, Any] = {}
    chunks: list[bytes] = []
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            started.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    answered = {k.decode(): v.decode() for k, v in started["headers"]}
    return started["status"], answered, b"".join(chunks)


Request = Callable[[], Awaitable[Answer]]


async def _batch(request: Request, expected: int) -> tuple[float, float]:
    """Wall and CPU milliseconds per request of one batch."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(REQUESTS):
        status, _, _ = await request()
        assert status == expected, status
    return (
        (time.perf_counter() - wall) / REQUESTS * 1e3,
        (time.process_time() - cpu) / REQUESTS * 1e3,
    )


async def _pair(label: str, plain: Request, conditional: Request, expected: int) -> None:
    for request, status in ((plain, 200), (conditional, expected)):
        for _ in range(50):  # warm caches, pools and prepared statements
            assert (await request())[0] == status
    gc.collect()
    times: dict[str, list[tuple[float, float]]] = {"plain": [], "conditional": []}
    for _ in range(BATCHES):
        times["plain"].append(await _batch(plain, 200))
        times["conditional"].append(await _batch(conditional, expected))
    wall = {name: statistics.median(t[0] for t in values) for name, values in times.items()}
    cpu = {name: statistics.median(t[1] for t in values) for name, values in times.items()}
    print(
        f"{label} (medians of {BATCHES} batches of {REQUESTS})\n"
        f"  {'':12} {'wall ms':>8} {'CPU ms':>8}\n"
        f"  {'plain':12} {wall['plain']:>8.3f} {cpu['plain']:>8.3f}\n"
        f"  {'conditional':12} {wall['conditional']:>8.3f} {cpu['conditional']:>8.3f}\n"
        f"  ratio (conditional / plain): wall {wall['conditional'] / wall['plain']:.2f}, "
        f"CPU {cpu['conditional'] / cpu['plain']:.2f}\n",
        flush=True,
    )


async def _run(seeded: dict[str, str]) -> None:
    from plumbline.app import create_app

    app = create_app()
    key = {"x-api-key": seeded["key"]}
    issues = f"/api/v1/projects/{seeded['projectId']}/issues"
    json_body = {**key, "content-type": "application/json"}
    status, _, made = await _call(app, "POST", issues, json_body, b'{"title": "Benchmark"}')
    assert status == 200, made
    url = f"{issues}/{orjson.loads(made)['id']}"
    status, answered, _ = await _call(app, "GET", url, key)
    tag = answered["etag"]

    async def read() -> Answer:
        return await _call(app, "GET", url, key)

    async def read_held() -> Answer:
        return await _call(app, "GET", url, {**key, "if-none-match": tag})

    async def read_other() -> Answer:
        return await _call(app, "GET", url, {**key, "if-none-match": '"another"'})

    await _pair("GET one issue: If-None-Match current (304)", read, read_held, 304)
    await _pair("GET one issue: If-None-Match stale (200)", read, read_other, 200)

    count = 0
    current = {"tag": tag}

    def title() -> bytes:
        nonlocal count
        count += 1
        return orjson.dumps({"title": f"Benchmark {count}"})

    async def write() -> Answer:
        answer = await _call(app, "PATCH", url, json_body, title())
        current["tag"] = answer[1].get("etag", "")  # the tag the next conditional PATCH holds
        return answer

    async def write_if_match() -> Answer:
        headers = {**json_body, "if-match": current["tag"]}
        answer = await _call(app, "PATCH", url, headers, title())
        current["tag"] = answer[1].get("etag", "")
        return answer

    await _pair("PATCH one issue: If-Match current", write, write_if_match, 200)


def main() -> None:
    print(
        "conditional requests: in process through ASGI, one request at a time, API key, "
        f"PostgreSQL ({os.cpu_count()} CPUs)",
        flush=True,
    )
    with fresh_database("conditional") as env:
        seeded = orjson.loads(seed(env, "issues", 10))
        os.environ.update(env)
        asyncio.run(_run(seeded))


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_COND_BATCHES": "1", "BENCH_COND_REQUESTS": "2"})


if __name__ == "__main__":
    main()
