"""POST /api/v1/projects/{p}/issues in a project with one active webhook against the same create
in a project without one, on the same server in the same run.

``python -m benchmarks.webhooks`` (PostgreSQL on 127.0.0.1:5432 and wrk). The delivery is off
the request path: the create writes the event, the delivery row and its job in its own
transaction, and the sending is a job. The server runs with ``PLUMBLINE_JOBS=worker`` and no
worker, so the figure is the request path alone (the sending itself is measured by the two-worker
test, tests/webhook/test_workers.py); after the runs, every create of the webhook's project is
checked to have queued exactly one delivery, and the other project none. The pairs alternate
which side goes first; ``BENCH_WEBHOOK_RUNS`` (3) pairs, the median ratio printed.
"""

from __future__ import annotations

import asyncio
import os
import statistics

import asyncpg
import httpx
import orjson

from benchmarks.harness import describe, fresh_database, report, seed, serve, wrk

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


def main() -> None:
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
    median = statistics.median(ratios)
    verdict = "meets" if median >= TARGET else "misses"
    listed = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"webhook create ratios: {listed}; median {median:.2f} ({verdict} {TARGET})")
    print(f"every create with the webhook queued its delivery ({queued} of {issues})")


if __name__ == "__main__":
    main()
