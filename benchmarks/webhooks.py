"""POST /api/v1/projects/{p}/issues in a project with one active webhook against the same create
in a project without one, on the same server in the same run.

``python -m benchmarks.webhooks`` (PostgreSQL on 127.0.0.1:5432 and wrk). The delivery is off
the request path: the create writes the event, the delivery row and its job in its own
transaction, and the sending is a job. The server runs with ``PLUMBLINE_JOBS=worker`` and no
worker, so the figure is the request path alone (the sending itself is measured by the two-worker
test, tests/webhook/test_workers.py); after the runs, every create of the webhook's project is
checked to have queued exactly one delivery, and the other project none. The pairs alternate
which side goes first; ``BENCH_WEBHOOK_RUNS`` (3) pairs, the median ratio printed.

Requests/s move with what else the machine does; so the CPU the server process spends per
create is measured too, in process and one request at a time as ``benchmarks.cpu`` does, the
two projects' batches interleaved (``BENCH_CPU_BATCHES`` of ``BENCH_CPU_REQUESTS``): the ratio
of the smallest batches is the steadier figure.
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import subprocess
import sys
import time

import asyncpg
import httpx
import orjson

from benchmarks.cpu import BATCHES, REQUESTS, _post
from benchmarks.harness import check_main, describe, fresh_database, report, seed, serve, wrk

RUNS = int(os.environ.get("BENCH_WEBHOOK_RUNS", "3"))
TARGET = 0.9  # within 10 % of the create without a webhook
BODY = '{"title": "Benchmark issue", "priority": "HIGH", "location": "Level 2"}'
# A reserved name: saved (it resolves to nothing, so nothing private), never sent to.
RECEIVER = "https://receiver.example/plumbline"


async def _queued(dsn: str, project_id: str) -> tuple[int, int]:
    """Issues created in the project, and deliveries queued for them (with a job each)."""
    conn = await asyncpg.connect(dsn)
    try:
        issues = await conn.fetchval(
            "SELECT count(*) FROM issues WHERE project_id = $1 AND title = 'Benchmark issue'",
            project_id,
        )
        queued = await conn.fetchval(
            "SELECT count(*) FROM webhook_deliveries d JOIN jobs j ON j.id = d.job_id "
            "WHERE d.project_id = $1 AND d.event_type = 'issue.created'",
            project_id,
        )
        return int(issues), int(queued)
    finally:
        await conn.close()


async def _cpu(seeded: dict[str, dict[str, str]]) -> dict[str, list[float]]:
    """CPU µs per create of each project, batches interleaved (run in its own process)."""
    from plumbline.app import create_app

    app = create_app()
    paths = {name: f"/api/v1/projects/{s['projectId']}/issues" for name, s in seeded.items()}
    for name, path in paths.items():
        for _ in range(200):  # caches, pools, prepared statements
            assert await _post(app, path, seeded[name]["key"]) == 200
    gc.collect()
    gc.freeze()
    batches: dict[str, list[float]] = {name: [] for name in paths}
    for batch in range(BATCHES):
        for name in paths if batch % 2 == 0 else reversed(list(paths)):
            started = time.process_time()
            for _ in range(REQUESTS):
                await _post(app, paths[name], seeded[name]["key"])
            batches[name].append((time.process_time() - started) / REQUESTS * 1e6)
    return batches


def _cpu_pair(env: dict[str, str], seeded: dict[str, dict[str, str]]) -> float:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.webhooks", "--cpu"],
        env={**env, "BENCH_SEEDED": orjson.dumps(seeded).decode()},
        capture_output=True,
        check=True,
    ).stdout.decode()
    batches = orjson.loads(out.strip().splitlines()[-1])
    print(f"\nCPU per create, in process, {BATCHES} batches of {REQUESTS} each side:")
    for name, label in (("hooked", "with webhook"), ("plain", "without")):
        times = batches[name]
        print(f"  {label:13} min {min(times):7.0f} µs   median {statistics.median(times):7.0f} µs")
    ratio = float(min(batches["plain"]) / min(batches["hooked"]))
    verdict = "meets" if ratio >= TARGET else "misses"
    print(
        f"  CPU ratio (without / with webhook, smallest batches): {ratio:.2f} ({verdict} {TARGET})"
    )
    return ratio


def main() -> None:
    if sys.argv[1:] == ["--cpu"]:  # one process, both sides
        import uvloop

        seeded = orjson.loads(os.environ["BENCH_SEEDED"])
        print(orjson.dumps(uvloop.run(_cpu(seeded))).decode())
        return
    describe("webhook benchmark: the issue create with and without one active webhook, API key")
    with fresh_database("webhooks") as env:
        seeded = orjson.loads(seed(env, "webhooks", 0))
        env = {**env, "PLUMBLINE_JOBS": "worker"}  # queued, not sent: the request path alone
        with serve("plumbline.app:create_app", env, factory=True) as base_url:
            sides = {}
            for name in ("plain", "hooked"):
                key = seeded[name]["key"]
                headers = {"x-api-key": key, "Content-Type": "application/json"}
                url = f"{base_url}/api/v1/projects/{seeded[name]['projectId']}"
                sides[name] = (f"{url}/issues", headers)
            hook = httpx.post(
                f"{sides['hooked'][0].rsplit('/', 1)[0]}/webhooks",
                json={"url": RECEIVER, "events": ["issue.created", "issue.updated"]},
                headers=sides["hooked"][1],
                timeout=30,
            )
            assert hook.status_code == 200, hook.text
            for url, headers in sides.values():  # warm both paths up
                check = httpx.post(url, content=BODY, headers=headers, timeout=30)
                assert check.status_code == 200, check.text
            ratios = []
            for run in range(RUNS):
                order = ("plain", "hooked") if run % 2 == 0 else ("hooked", "plain")
                results = {name: wrk(*sides[name], method="POST", body=BODY) for name in order}
                report(
                    f"POST /api/v1/projects/{{p}}/issues, run {run + 1}: one active webhook "
                    "(baseline: the same create without one)",
                    results["hooked"],
                    results["plain"],
                    TARGET,
                    name="with webhook",
                )
                ratio = results["hooked"].requests_per_second
                ratios.append(ratio / results["plain"].requests_per_second)
        issues, queued = asyncio.run(_queued(env["BENCH_DSN"], seeded["hooked"]["projectId"]))
        assert issues == queued, f"{issues} creates but {queued} deliveries queued"
        plain = asyncio.run(_queued(env["BENCH_DSN"], seeded["plain"]["projectId"]))
        assert plain[1] == 0, plain
        _cpu_pair(env, seeded)
    median = statistics.median(ratios)
    verdict = "meets" if median >= TARGET else "misses"
    listed = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"webhook create ratios: {listed}; median {median:.2f} ({verdict} {TARGET})")
    print(f"every create with the webhook queued its delivery ({queued} of {issues})")


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(
        __name__, {"BENCH_WEBHOOK_RUNS": "1", "BENCH_CPU_BATCHES": "1", "BENCH_CPU_REQUESTS": "2"}
    )


if __name__ == "__main__":
    main()
