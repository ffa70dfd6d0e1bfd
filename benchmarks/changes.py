"""GET /api/v1/projects/{p}/changes, a page of 1,000 events, against the issue list of the same
1,000 issues in the same run.

``python -m benchmarks.changes`` (PostgreSQL on 127.0.0.1:5432 and wrk). The seed writes one
``issue.updated`` event per issue through the event log's own writer, so each change carries the
issue as the list answers it: the two responses hold the same 1,000 issue bodies, the feed's
wrapped in its change envelope. Also prints the SQL statements of a feed page of 1, 10, 100 and
1,000 changes, counted in process (it must not grow with the page).
"""

from __future__ import annotations

import asyncio
import os
import sys

import orjson

from benchmarks.harness import check_main, describe, fresh_database, report, seed, serve, wrk

EVENTS = int(os.environ.get("BENCH_EVENTS", "1000"))


async def _count_statements(project_id: str, key: str) -> dict[int, int]:
    """Statements per feed page of each size, through the app in this process."""
    import httpx
    from sqlalchemy import event

    from plumbline.app import create_app
    from plumbline.db import database

    counts: dict[int, int] = {}
    statements: list[str] = []

    def count(conn: object, cursor: object, statement: str, *args: object) -> None:
        if not statement.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            statements.append(statement)

    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        url = f"/api/v1/projects/{project_id}/changes"
        await client.get(url, headers={"x-api-key": key}, params={"limit": 1})  # warm
        event.listen(database.engine.sync_engine, "before_cursor_execute", count)
        for size in dict.fromkeys(n for n in (1, 10, 100, EVENTS) if n <= EVENTS):
            statements.clear()
            answer = await client.get(url, headers={"x-api-key": key}, params={"limit": size})
            assert answer.status_code == 200 and len(answer.json()["changes"]) == size
            counts[size] = len(statements)
        event.remove(database.engine.sync_engine, "before_cursor_execute", count)
    await database.dispose()
    return counts


def main() -> None:
    describe(f"change feed benchmark: {EVENTS} events of {EVENTS} issues, API key")
    with fresh_database("changes") as env:
        seeded = orjson.loads(seed(env, "changes", EVENTS))
        headers = {"x-api-key": seeded["key"]}
        project = seeded["projectId"]
        with serve("plumbline.app:create_app", env, factory=True) as base_url:
            api = f"{base_url}/api/v1/projects/{project}"
            feed = wrk(f"{api}/changes?limit={EVENTS}", headers)
            listed = wrk(f"{api}/issues?limit={EVENTS}", headers)
        report(
            f"GET /changes?limit={EVENTS} against GET /issues?limit={EVENTS} (same issues)",
            feed,
            listed,
            name="changes page",
        )
        os.environ.update(env)
        counts = asyncio.run(_count_statements(project, seeded["key"]))
        listed_counts = ", ".join(f"{size} changes: {n}" for size, n in counts.items())
        fixed = len(set(counts.values())) == 1
        print(f"SQL statements per feed page: {listed_counts} ({'fixed' if fixed else 'GROWS'})")
        if not fixed:
            sys.exit(1)


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_EVENTS": "10"})


if __name__ == "__main__":
    main()
