"""Bulk upsert against single creates: 1,000 issues through ``POST /projects/{p}/issues/bulk``
(created, then the same body again: unchanged, then one field changed: updated) against 1,000
``POST /projects/{p}/issues`` one after the other, in the same run, on PostgreSQL.

``python -m benchmarks.bulk`` (needs PostgreSQL on 127.0.0.1:5432). One client, one request at
a time: what an integrator syncing 1,000 records waits for. Prints the time per record of each
and the ratio; then checks what was written: every record with its one audit entry per write,
and none for the unchanged run.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import asyncpg
import httpx
import orjson

from benchmarks.harness import check_main, fresh_database, seed, serve

RECORDS = int(os.environ.get("BENCH_BULK_RECORDS", "1000"))
BODY = {"title": "Benchmark issue", "priority": "HIGH", "location": "Level 2"}


def _record(key: str, **changes: Any) -> dict[str, Any]:
    return {"externalId": key, **BODY, **changes}


async def _audit(dsn: str, prefix: str) -> dict[str, int]:
    """The audit entries of the issues whose key starts with ``prefix``, by action."""
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT a.action, count(*) FROM audit_logs a JOIN issues i ON i.id = a.entity_id "
            "WHERE i.external_id LIKE $1 GROUP BY a.action",
            f"{prefix}%",
        )
        return {row[0]: int(row[1]) for row in rows}
    finally:
        await conn.close()


def _timed(client: httpx.Client, url: str, body: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    response = client.post(url, content=orjson.dumps(body))
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise RuntimeError(f"{url}: {response.status_code} {response.text[:300]}")
    return elapsed, response.json()


def main() -> None:
    print(
        f"bulk upsert benchmark: {RECORDS} issues, one client, one request at a time, "
        f"PostgreSQL, one uvicorn worker ({os.cpu_count()} CPUs)",
        flush=True,
    )
    with fresh_database("bulk") as env:
        seeded = orjson.loads(seed(env, "issues", 1))
        headers = {"x-api-key": seeded["key"], "Content-Type": "application/json"}
        with serve("plumbline.app:create_app", env, factory=True) as base_url:
            url = f"{base_url}/api/v1/projects/{seeded['projectId']}/issues"
            with httpx.Client(headers=headers, timeout=300) as client:
                _timed(client, url, _record("warm-up"))
                singles = 0.0
                for n in range(RECORDS):
                    elapsed, _ = _timed(client, url, _record(f"S-{n:05}"))
                    singles += elapsed
                runs: dict[str, float] = {}
                bodies = {
                    "created": [_record(f"B-{n:05}") for n in range(RECORDS)],
                    "unchanged": [_record(f"B-{n:05}") for n in range(RECORDS)],
                    "updated": [_record(f"B-{n:05}", priority="LOW") for n in range(RECORDS)],
                }
                for status, records in bodies.items():
                    elapsed, answer = _timed(client, f"{url}/bulk", {"records": records})
                    if answer[status] != RECORDS:
                        raise RuntimeError(f"expected {RECORDS} {status}: {answer}")
                    runs[status] = elapsed
        audit = asyncio.run(_audit(env["BENCH_DSN"], "B-"))
    per_single = singles / RECORDS * 1000
    print(f"\n  {'':34} {'total s':>8} {'ms/record':>10} {'vs single':>10}")
    print(f"  {'1,000 single creates':34} {singles:>8.2f} {per_single:>10.3f} {'1.00':>10}")
    for status, elapsed in runs.items():
        per_record = elapsed / RECORDS * 1000
        label = f"one bulk of {RECORDS:,} ({status})"
        ratio = per_single / per_record
        print(f"  {label:34} {elapsed:>8.2f} {per_record:>10.3f} {ratio:>9.1f}x")
    print(f"\n  audit entries of the bulk's issues: {audit}", flush=True)
    if audit != {"issue.created": RECORDS, "issue.updated": RECORDS}:
        raise RuntimeError("the unchanged run wrote audit entries, or a write lacks one")


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_BULK_RECORDS": "5"})


if __name__ == "__main__":
    main()
