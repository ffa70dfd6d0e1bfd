"""GET and POST /api/v1/projects/{p}/issues against the raw asyncpg + orjson baseline.

``python -m benchmarks.issues`` (needs PostgreSQL on 127.0.0.1:5432 and wrk; ``BENCH_ONLY=list``
or ``create`` runs one pair). Both servers authenticate the same API key; what the baseline does
is described in ``benchmarks.baselines``. The list is measured at ``?limit=BENCH_ISSUES`` (one
page of 1,000 by default); its bodies and ``Link`` headers are compared before measuring; for
the creates, the response bodies are compared (ids, numbers and times aside) and, after each
run, the issues written are checked to have one ``issue.created`` audit row each.
``check()``: 101 issues, the default page (100 and a ``Link``), a page of 1,000 and of 10, and a
create, each answered alike by both servers.
"""

from __future__ import annotations

import asyncio
import os
import statistics
from typing import Any

import asyncpg
import httpx
import orjson

from benchmarks.harness import describe, fresh_database, report, same, seed, serve, wrk

ISSUES = int(os.environ.get("BENCH_ISSUES", "1000"))
ONLY = os.environ.get("BENCH_ONLY", "")  # "list" or "create" runs just that pair
# The create's baseline waits on the project's counter row lock (its figure moves with the
# disk from run to run): several runs and their median say more than one.
CREATE_RUNS = int(os.environ.get("BENCH_CREATE_RUNS", "3"))
LIST_TARGET = 0.7
CREATE_TARGET = 0.5
CREATE_BODY = '{"title": "Benchmark issue", "priority": "HIGH", "location": "Level 2"}'
VARYING = ("id", "number", "createdAt", "updatedAt", "statusChangedAt")

SERVERS = (
    ("plumbline", "plumbline.app:create_app", True, "/api/v1"),
    ("baseline", "benchmarks.baselines:issues_app", False, ""),
)


async def _writes(dsn: str) -> tuple[int, int]:
    """Issues created by the benchmark, and their ``issue.created`` audit rows."""
    conn = await asyncpg.connect(dsn)
    try:
        issues = await conn.fetchval("SELECT count(*) FROM issues WHERE title = 'Benchmark issue'")
        audited = await conn.fetchval(
            "SELECT count(*) FROM audit_logs a JOIN issues i ON i.id = a.entity_id "
            "WHERE a.action = 'issue.created' AND i.title = 'Benchmark issue'"
        )
        return int(issues), int(audited)
    finally:
        await conn.close()


def _stable(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in VARYING}


def _list_answer(base_url: str, prefix: str, path: str, query: str, headers: dict[str, str]) -> Any:
    """A list page as the two servers must agree on it: status, body and ``Link`` (its URL's
    server and prefix left out)."""
    answer = httpx.get(f"{base_url}{prefix}{path}{query}", headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text[:300]
    link = answer.headers.get("link")
    return answer.json(), link and link.replace(f"{base_url}{prefix}", "")


def check() -> None:
    """Set-up and first requests: both servers answer the same pages and the same create."""
    with fresh_database("issues_check") as env:
        seeded = orjson.loads(seed(env, "issues", 101))
        headers = {"x-api-key": seeded["key"]}
        post_headers = {**headers, "Content-Type": "application/json"}
        path = f"/projects/{seeded['projectId']}/issues"
        (_, app, factory, prefix), (_, base_app, base_factory, _) = SERVERS
        with (
            serve(app, env, factory=factory) as url,
            serve(base_app, env, factory=base_factory) as base,
        ):
            sides = {"plumbline": (url, prefix), "baseline": (base, "")}
            answers: dict[str, Any] = {
                name: [
                    _list_answer(base_url, prefix, path, query, headers)
                    for query in ("", "?limit=1000", "?limit=10")
                ]
                for name, (base_url, prefix) in sides.items()
            }
            made = {}
            for name, (base_url, prefix) in sides.items():  # after both read the same rows
                answer = httpx.post(
                    f"{base_url}{prefix}{path}", headers=post_headers, content=CREATE_BODY
                )
                assert answer.status_code == 200, answer.text[:300]
                made[name] = _stable(answer.json())
        default, whole, short = answers["plumbline"]
        assert len(default[0]) == 100 and default[1], "the default page: 100 rows and a Link"
        assert len(whole[0]) == 101 and whole[1] is None and len(short[0]) == 10
        same("the list pages", answers["plumbline"], answers["baseline"])
        same("the create", made["plumbline"], made["baseline"])
        issues, audited = asyncio.run(_writes(env["BENCH_DSN"]))
        assert issues == audited == 2, f"{issues} issues created, {audited} audit rows"


def main() -> None:
    describe(f"issues benchmark: {ISSUES} issues, API key")
    print(
        "baseline: one statement for key + live project + workspace (scope, module checks), "
        "then GET: the list query, no transaction; POST: body validation, then in one "
        "transaction the audit row, the next number and the issue in one statement "
        "(see benchmarks/baselines.py). "
        "Corrected: the list baseline now also checks the project, scope and module and "
        "passes JSON through as the route does; the create baseline now also runs the access "
        "checks, the validation, the audit row and the transaction it skipped",
        flush=True,
    )
    with fresh_database("issues") as env:
        seeded = orjson.loads(seed(env, "issues", ISSUES))
        headers = {"x-api-key": seeded["key"]}
        post_headers = {**headers, "Content-Type": "application/json"}
        path = f"/projects/{seeded['projectId']}/issues"
        if ONLY in ("", "list"):
            results = {}
            bodies = {}
            query = f"?limit={ISSUES}"
            for name, app, factory, prefix in SERVERS:
                with serve(app, env, factory=factory) as base_url:
                    bodies[name] = _list_answer(base_url, prefix, path, query, headers)
                    assert len(bodies[name][0]) == ISSUES, len(bodies[name][0])
                    results[name] = wrk(f"{base_url}{prefix}{path}{query}", headers)
            same("the list", bodies["plumbline"], bodies["baseline"])
            report(
                f"GET /api/v1/projects/{{p}}/issues?limit={ISSUES} ({ISSUES} issues)",
                results["plumbline"],
                results["baseline"],
                LIST_TARGET,
            )
        if ONLY in ("", "create"):
            ratios = [_create_pair(env, path, post_headers) for _ in range(CREATE_RUNS)]
            if CREATE_RUNS > 1:
                median = statistics.median(ratios)
                verdict = "meets" if median >= CREATE_TARGET else "misses"
                listed = ", ".join(f"{r:.2f}" for r in ratios)
                print(f"create ratios: {listed}; median {median:.2f} ({verdict} {CREATE_TARGET})")


def _create_pair(env: dict[str, str], path: str, post_headers: dict[str, str]) -> float:
    """One wrk run of the create against each server; returns the ratio."""
    results = {}
    made = {}
    for name, app, factory, prefix in SERVERS:
        with serve(app, env, factory=factory) as base_url:
            url = f"{base_url}{prefix}{path}"
            check = httpx.post(url, headers=post_headers, content=CREATE_BODY, timeout=30)
            assert check.status_code == 200, check.text[:300]
            made[name] = check.json()
            results[name] = wrk(url, post_headers, method="POST", body=CREATE_BODY)
        issues, audited = asyncio.run(_writes(env["BENCH_DSN"]))
        assert issues == audited, f"{name}: {issues} issues but {audited} audit rows"
    same("the create", _stable(made["plumbline"]), _stable(made["baseline"]))
    report(
        "POST /api/v1/projects/{p}/issues",
        results["plumbline"],
        results["baseline"],
        CREATE_TARGET,
    )
    return results["plumbline"].requests_per_second / results["baseline"].requests_per_second


if __name__ == "__main__":
    main()
