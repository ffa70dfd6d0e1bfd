"""The issue list at 1,000, 10,000 and 100,000 issues in one project, on PostgreSQL.

``python -m benchmarks.scale`` (PostgreSQL on 127.0.0.1:5432 and wrk; about five minutes).
``BENCH_SCALE_SIZES`` (``1000,10000,100000``), ``BENCH_SCALE_CONNECTIONS`` (8 clients) and
``BENCH_SECONDS`` (10) per figure.

The schema is the real one (the migrations); a 10-issue project is seeded through the models
(``benchmarks.seed issues 10``), each big project is a copy of its project and API key rows with
its issues written by COPY (``copy_records_to_table``), a few with a reference photo (the
``attachments`` rows the list's EXISTS reads), then VACUUM ANALYZE (the steady state autovacuum
leaves: the trigram indexes' pending list merged). Every 1/20th issue's title holds the
word ``efflorescence`` (20 matches at any size: the ``q`` case). One uvicorn worker serves the
list (``benchmarks.harness.serve``) and, per size, wrk drives:

- ``default``: the first page with the default page size;
- ``q``: ``?q=efflorescence``;
- ``status``: ``?status=OPEN`` (a quarter of the rows);
- ``updatedSince``: the changes of the last tenth of the rows;
- ``last page``: the last page of the newest-first order, its cursor found by walking the
  ``Link`` headers from the first page (the walk's time is printed too).

Database figures, since ``pg_stat_statements`` is not loaded on this server
(``shared_preload_libraries`` is empty; loading it needs a restart):

- ``db ms``: the request's SQL statements, captured in process as the app sends them, each run
  under ``EXPLAIN (ANALYZE)`` with the same parameters (planning + execution time summed; the
  median of five);
- ``db cpu ms``: the CPU the server's PostgreSQL backends spent during the wrk run
  (``/proc/<pid>/stat`` of the backends ``pg_stat_activity`` lists for the benchmark's
  database, before and after), per request. Parallel workers are other processes and are not in
  it; ``db ms`` counts their time.

Then the plan flip: the 10-issue project's list on a server holding one database connection,
fresh (its first requests) against after that connection served the biggest project's first
page 10 times and 5 pages after it (PostgreSQL may then keep a generic plan for the statement
it prepared); the median request time of each, and the same through ``PREPARE``/``EXPLAIN
(ANALYZE) EXECUTE`` (database time and the plan's scan).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import secrets
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import orjson
import uuid_utils

from benchmarks.harness import check_main, describe, fresh_database, seed, serve, wrk

SIZES = tuple(int(n) for n in os.environ.get("BENCH_SCALE_SIZES", "1000,10000,100000").split(","))
CLIENTS = int(os.environ.get("BENCH_SCALE_CONNECTIONS", "8"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))
WORD = "efflorescence"
MATCHES = 20
CASES = ("default", "q", "status", "updatedSince", "last page")


def _new_id() -> str:
    return uuid_utils.uuid7().hex


async def _copy_project(
    conn: asyncpg.Connection, small: dict[str, str], size: int
) -> dict[str, Any]:
    """A project like the small one, its own API key, ``size`` issues by COPY."""
    project_id, key_id = _new_id(), _new_id()
    raw = f"psk_{secrets.token_urlsafe(30)}"
    project = dict(await conn.fetchrow("SELECT * FROM projects WHERE id = $1", small["projectId"]))
    project |= {"id": project_id, "name": f"Tower {size}"}
    await _insert(conn, "projects", project)
    key = dict(
        await conn.fetchrow("SELECT * FROM api_keys WHERE project_id = $1", small["projectId"])
    )
    key |= {
        "id": key_id,
        "project_id": project_id,
        "key_hash": hashlib.sha256(raw.encode()).hexdigest(),
        "prefix": raw[:12],
        "last_used_at": None,
    }
    await _insert(conn, "api_keys", key)
    user_id = await conn.fetchval("SELECT id FROM users LIMIT 1")
    start = datetime.now(UTC) - timedelta(seconds=size)
    every = max(size // MATCHES, 1)
    columns = [
        "id",
        "project_id",
        "workspace_id",
        "number",
        "title",
        "description",
        "status",
        "priority",
        "issue_kind",
        "assignee_id",
        "due_date",
        "location",
        "page_number",
        "pin",
        "work_order_type",
        "checklist",
        "created_by",
        "created_at",
        "updated_at",
        "status_changed_at",
        "resolved_at",
        "closed_at",
    ]
    kinds, statuses = ("CONSTRUCTION", "WORK_ORDER"), ("OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED")
    ids = [_new_id() for _ in range(size)]
    records = []
    for i in range(size):
        at = start + timedelta(seconds=i)
        word = f" {WORD} at the parapet" if i % every == 0 else ""
        records.append(
            (
                ids[i],
                project_id,
                project["workspace_id"],
                i + 1,
                f"Issue {i + 1}: sealant missing at curtain wall joint{word}",
                "Observed during the walk-through; see drawing A-201." * 2,
                statuses[i % 4],
                ("LOW", "MEDIUM", "HIGH", "URGENT")[i % 4],
                kinds[i % 2],
                user_id if i % 3 == 0 else None,
                (at + timedelta(days=i % 30)).date() if i % 2 else None,
                f"Level {i % 12}",
                1 + i % 5,
                '{"x": 0.25, "y": 0.75}' if i % 2 else None,
                "CORRECTIVE" if i % 2 else None,
                '[{"id": "c1", "label": "Photograph", "done": false}]',
                user_id,
                at,
                at,
                at,
                at if i % 4 >= 2 else None,
                at if i % 4 == 3 else None,
            )
        )
    await conn.copy_records_to_table("issues", records=records, columns=columns)
    photos = [
        (
            _new_id(),
            project["workspace_id"],
            project_id,
            "issue",
            ids[i],
            _new_id(),
            "photo.jpg",
            "image/jpeg",
            1234,
            f"bench/{ids[i]}",
            start,
        )
        for i in range(0, size, 97)
    ]
    await conn.copy_records_to_table(
        "attachments",
        records=photos,
        columns=[
            "id",
            "workspace_id",
            "project_id",
            "entity_type",
            "entity_id",
            "upload_id",
            "file_name",
            "content_type",
            "size_bytes",
            "storage_key",
            "created_at",
        ],
    )
    await conn.execute(
        "INSERT INTO project_counters (project_id, kind, value) VALUES ($1, 'issue', $2)",
        project_id,
        size,
    )
    since = start + timedelta(seconds=size * 9 // 10)
    return {"projectId": project_id, "key": raw, "since": since.isoformat()}


async def _insert(conn: asyncpg.Connection, table: str, row: dict[str, Any]) -> None:
    names = ", ".join(row)
    marks = ", ".join(f"${n}" for n in range(1, len(row) + 1))
    await conn.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", *row.values())  # noqa: S608


async def _seed(dsn: str, small: dict[str, str]) -> dict[int, dict[str, Any]]:
    conn = await asyncpg.connect(dsn)
    try:
        seeded = {}
        for size in SIZES:
            started = time.monotonic()
            seeded[size] = await _copy_project(conn, small, size)
            # VACUUM as autovacuum would soon after such an insert: it also moves the trigram
            # indexes' pending list (GIN fastupdate) into the index, which a search right after
            # a bulk COPY reads whole (2.2 ms instead of 0.4 ms for a rare word at 100,000).
            await conn.execute("VACUUM ANALYZE issues")
            await conn.execute("VACUUM ANALYZE attachments")
            print(
                f"  seeded {size:,} issues by COPY in {time.monotonic() - started:.1f} s",
                flush=True,
            )
        return seeded
    finally:
        await conn.close()


def _queries(seeded: dict[str, Any]) -> dict[str, str]:
    since = httpx.QueryParams({"updatedSince": seeded["since"]})
    return {
        "default": "",
        "q": f"q={WORD}",
        "status": "status=OPEN",
        "updatedSince": str(since),
    }


def _last_page(url: str, headers: dict[str, str]) -> tuple[str, int, float]:
    """The last page's URL, found by following ``Link`` from ``url``; pages and seconds."""
    started, pages = time.monotonic(), 0
    with httpx.Client(headers=headers, timeout=60) as client:
        while True:
            answer = client.get(url)
            assert answer.status_code == 200, answer.text[:300]
            pages += 1
            link = answer.headers.get("link")
            if link is None:
                return url, pages, time.monotonic() - started
            url = re.match(r"<([^>]+)>", link).group(1)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- database time


async def _statements(requests: list[tuple[str, str, str]]) -> list[list[tuple[str, Any]]]:
    """The SELECT statements (with their parameters) each request (path, query, API key)
    sends, in process."""
    from sqlalchemy import event

    from benchmarks.lists import get
    from plumbline.app import create_app
    from plumbline.db import database

    app = create_app()
    captured: list[tuple[str, Any]] = []

    def capture(
        conn: object, cursor: object, statement: str, parameters: Any, *args: object
    ) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            captured.append((statement, parameters))

    result = []
    event.listen(database.engine.sync_engine, "before_cursor_execute", capture)
    for path, query, key in requests:
        captured.clear()
        status, body = await get(app, path, key, query)
        assert status == 200, body[:300]
        result.append(list(captured))
    event.remove(database.engine.sync_engine, "before_cursor_execute", capture)
    await database.dispose()
    return result


async def _explained(dsn: str, statements: list[tuple[str, Any]]) -> float:
    """Planning + execution ms of the statements under EXPLAIN (ANALYZE), median of 5 runs."""
    conn = await asyncpg.connect(dsn)
    try:
        runs = []
        for _ in range(5):
            total = 0.0
            for sql, params in statements:
                plan = await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", *params)
                plan = orjson.loads(plan)[0]
                total += plan["Planning Time"] + plan["Execution Time"]
            runs.append(total)
        return statistics.median(runs)
    finally:
        await conn.close()


def _backends_cpu(dsn: str) -> dict[int, int]:
    """Clock ticks of CPU (user + system) of each backend connected to the database."""

    async def pids() -> list[int]:
        conn = await asyncpg.connect(dsn)
        try:
            rows = await conn.fetch(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            )
            return [r[0] for r in rows]
        finally:
            await conn.close()

    ticks = {}
    for pid in asyncio.run(pids()):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            ticks[pid] = int(fields[11]) + int(fields[12])
        except OSError:
            continue
    return ticks


# ------------------------------------------------------------------------------ plan flip


def _timed(url: str, headers: dict[str, str], count: int) -> float:
    """Median ms of ``count`` sequential GETs of ``url``."""
    times = []
    with httpx.Client(headers=headers, timeout=60) as client:
        for _ in range(count):
            started = time.perf_counter()
            assert client.get(url).status_code == 200
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _literal(value: Any) -> str:
    if isinstance(value, int):
        return str(value)
    text = value.isoformat() if isinstance(value, datetime) else str(value)
    return "'" + text.replace("'", "''") + "'"


async def _prepared_flip(
    dsn: str, small: list[tuple[str, Any]], big: list[tuple[str, Any]]
) -> dict[str, Any]:
    """The list statement PREPAREd as asyncpg prepares it: the small project's EXPLAIN
    (ANALYZE) EXECUTE on a fresh connection, and after 15 runs for the big project."""

    def rows_statement(statements: list[tuple[str, Any]]) -> tuple[str, Any]:
        return next(s for s in statements if "FROM issues" in s[0])

    (sql, small_params), (_, big_params) = rows_statement(small), rows_statement(big)
    found = {}
    for label, before in (("fresh", 0), ("after the big project's", 15)):
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(f"PREPARE issue_list AS {sql}")
            for _ in range(before):
                await conn.execute(f"EXECUTE issue_list({', '.join(map(_literal, big_params))})")
            args = ", ".join(map(_literal, small_params))
            plan = orjson.loads(
                await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE issue_list({args})")
            )[0]
            scans = []
            node = plan["Plan"]
            stack = [node]
            while stack:
                node = stack.pop()
                if "Scan" in node["Node Type"]:
                    scans.append(
                        f"{node['Node Type']} on {node.get('Index Name') or node.get('Relation Name')}"
                    )
                stack.extend(node.get("Plans", []))
            found[label] = (plan["Planning Time"] + plan["Execution Time"], "; ".join(scans))
        finally:
            await conn.close()
    return found


def main() -> None:
    describe(f"scale benchmark: the issue list at {', '.join(f'{n:,}' for n in SIZES)} issues")
    print(f"wrk here: {CLIENTS} connections, {SECONDS} s per figure", flush=True)
    with fresh_database("scale") as env:
        dsn = env["BENCH_DSN"]
        small = orjson.loads(seed(env, "issues", 10))
        started = time.monotonic()
        seeded = asyncio.run(_seed(dsn, small))
        print(f"  seeding done in {time.monotonic() - started:.1f} s", flush=True)
        rows: list[tuple[int, str, Any, float, float]] = []
        lasts: dict[int, str] = {}
        with serve("plumbline.app:create_app", env, factory=True) as base_url:
            for size in SIZES:
                data = seeded[size]
                headers = {"x-api-key": data["key"]}
                url = f"{base_url}/api/v1/projects/{data['projectId']}/issues"
                queries = _queries(data)
                last, pages, walked = _last_page(url, headers)
                lasts[size] = last
                print(f"  {size:,}: {pages} pages walked to the last in {walked:.2f} s", flush=True)
                queries["last page"] = httpx.URL(last).query.decode()
                for case in CASES:
                    before = _backends_cpu(dsn)
                    result = wrk(
                        f"{url}?{queries[case]}" if queries[case] else url,
                        headers,
                        connections=CLIENTS,
                        seconds=SECONDS,
                    )
                    after = _backends_cpu(dsn)
                    ticks = sum(t - before.get(pid, 0) for pid, t in after.items())
                    served = result.requests_per_second * SECONDS
                    cpu_ms = ticks / os.sysconf("SC_CLK_TCK") * 1000 / max(served, 1)
                    rows.append((size, case, result, cpu_ms, 0.0))
                    data.setdefault("queries", {})[case] = queries[case]
        # Database time per request: the requests' statements under EXPLAIN (ANALYZE).
        os.environ.update(env)
        requests = [
            (
                f"/api/v1/projects/{seeded[size]['projectId']}/issues",
                seeded[size]["queries"][case],
                seeded[size]["key"],
            )
            for size in SIZES
            for case in CASES
        ]
        explained = [
            asyncio.run(_explained(dsn, statements))
            for statements in asyncio.run(_statements(requests))
        ]
        rows = [(s, c, r, cpu, ms) for (s, c, r, cpu, _), ms in zip(rows, explained, strict=True)]
        flips = {size: _plan_flip(env, small, seeded[size]) for size in SIZES}
    print(f"\nGET /api/v1/projects/{{p}}/issues, {CLIENTS} clients, one uvicorn worker")
    print(
        f"  {'issues':>8} {'case':13} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>9} {'non-2xx':>7}"
        f" {'db ms':>8} {'db cpu ms':>9}"
    )
    for size, case, result, cpu_ms, db_ms in rows:
        print(
            f"  {size:>8,} {case:13} {result.requests_per_second:>8.1f} {result.p50_ms:>8.2f}"
            f" {result.p99_ms:>9.2f} {result.errors:>7} {db_ms:>8.2f} {cpu_ms:>9.2f}"
        )
    by = {(s, c): ms for s, c, _, _, ms in rows}
    top, bottom = SIZES[-1], SIZES[0]
    print(
        f"  q at {top:,}: {by[(top, 'q')] / by[(top, 'default')]:.1f}x the default page's db ms,"
        f" {by[(top, 'q')] / by[(bottom, 'q')]:.1f}x its own at {bottom:,} (issue 28: within 3x)"
    )
    print("\nPlan flip: the 10-issue project's list, one connection (pool of 1), fresh and after")
    print("the big project's pages (issue 28: within 1.5x)")
    for size, flip in flips.items():
        fresh, flipped = flip["fresh connection"], flip["after the big project's pages"]
        for label, (ms, db_ms, scans) in flip.items():
            print(f"  {size:>8,} {label:30} request {ms:7.2f} ms  EXECUTE {db_ms:6.2f} ms  {scans}")
        print(
            f"  {size:>8,} ratio after / fresh: request {flipped[0] / fresh[0]:.2f},"
            f" database {flipped[1] / fresh[1]:.2f}",
            flush=True,
        )


def _plan_flip(
    env: dict[str, str], small: dict[str, str], big: dict[str, Any]
) -> dict[str, tuple[float, float, str]]:
    """The small project's list, fresh and after the big one's pages, through the real server
    with one connection; and the same through PREPARE / EXPLAIN EXECUTE."""
    one = {**env, "PLUMBLINE_DB_POOL_SIZE": "1"}
    small_headers, big_headers = {"x-api-key": small["key"]}, {"x-api-key": big["key"]}
    requests: dict[str, float] = {}
    with serve("plumbline.app:create_app", one, factory=True) as base_url:
        small_url = f"{base_url}/api/v1/projects/{small['projectId']}/issues"
        requests["fresh"] = _timed(small_url, small_headers, 5)
    with serve("plumbline.app:create_app", one, factory=True) as base_url:
        small_url = f"{base_url}/api/v1/projects/{small['projectId']}/issues"
        big_url = f"{base_url}/api/v1/projects/{big['projectId']}/issues"
        _timed(big_url, big_headers, 10)
        with httpx.Client(headers=big_headers, timeout=60) as client:
            url = big_url
            for _ in range(5):
                link = client.get(url).headers.get("link")
                if link is None:
                    break
                url = re.match(r"<([^>]+)>", link).group(1)  # type: ignore[union-attr]
        requests["after"] = _timed(small_url, small_headers, 15)
    os.environ.update(env)
    small_statements, big_statements = asyncio.run(
        _statements(
            [
                (f"/api/v1/projects/{small['projectId']}/issues", "", small["key"]),
                (f"/api/v1/projects/{big['projectId']}/issues", "", big["key"]),
            ]
        )
    )
    prepared = asyncio.run(_prepared_flip(env["BENCH_DSN"], small_statements, big_statements))
    fresh_db, fresh_scans = prepared["fresh"]
    after_db, after_scans = prepared["after the big project's"]
    return {
        "fresh connection": (requests["fresh"], fresh_db, fresh_scans),
        "after the big project's pages": (requests["after"], after_db, after_scans),
    }


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_SCALE_SIZES": "100", "BENCH_SECONDS": "1"})


if __name__ == "__main__":
    main()
