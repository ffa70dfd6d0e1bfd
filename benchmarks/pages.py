"""The issues page against the JSON list of the same rows, same server, same run (PRODUCT §18).

``python -m benchmarks.pages`` (PostgreSQL on 127.0.0.1:5432 and wrk). One project of
``BENCH_PAGE_ROWS`` (100) issues and its owner signed in (``benchmarks.seed soak``); both sides
send the same session cookie:

- ``GET /app/projects/{p}/issues`` (the whole page, its default page of 100 rows) against
  ``GET /api/v1/projects/{p}/issues?limit=100``, each under wrk: requests/s and the page's cost
  as a multiple of the JSON's (bar: 1.5x, i.e. a ratio of requests/s of at least 0.67);
- the SQL statements of each, counted in process at ``BENCH_PAGE_ROWS`` rows and again at 1 row
  (the other issues deleted): fixed whatever the rows, else the run fails;
- the bytes of CSS and JS a first visit loads: the ``<link rel="stylesheet">`` and
  ``<script src>`` of the page's layout, each fetched from the server with
  ``Accept-Encoding: gzip`` as it serves them, summed (bar: 120 KB).

``check()``: the same at 3 rows, wrk sending one request (``harness.check_main``).
"""

from __future__ import annotations

import asyncio
import os
import re
import sys

import httpx
import orjson

from benchmarks.harness import check_main, describe, fresh_database, report, seed, serve, wrk

ROWS = int(os.environ.get("BENCH_PAGE_ROWS", "100"))
COST_BAR = 1.5  # the page may cost at most 1.5x the JSON list of the same rows
BYTES_BAR = 120_000  # CSS + JS of a first visit, gzipped
ASSET = re.compile(r'<(?:link[^>]*rel="stylesheet"[^>]*href|script[^>]*src)="(/[^"]+)"')


def _urls(project: str) -> tuple[str, str]:
    return f"/app/projects/{project}/issues", f"/api/v1/projects/{project}/issues?limit=100"


def first_visit_bytes(base_url: str, html: str, headers: dict[str, str]) -> dict[str, int]:
    """Each stylesheet and script the page names, as the server sends it gzipped: its bytes."""
    sizes: dict[str, int] = {}
    with httpx.Client(base_url=base_url, timeout=60) as client:
        for url in dict.fromkeys(ASSET.findall(html)):
            with client.stream("GET", url, headers={**headers, "Accept-Encoding": "gzip"}) as got:
                assert got.status_code == 200, (url, got.status_code)
                assert got.headers.get("content-encoding") == "gzip", (url, got.headers)
                sizes[url] = sum(len(chunk) for chunk in got.iter_raw())
    assert any(u.endswith(".css") for u in sizes) and any(u.endswith(".js") for u in sizes), sizes
    return sizes


async def count_statements(project: str, cookie: str, dsn: str) -> dict[str, dict[int, int]]:
    """Statements per request of the page and of the JSON list, at ROWS rows and at 1 row,
    through the app in this process."""
    import asyncpg
    from sqlalchemy import event

    from plumbline.app import create_app
    from plumbline.db import database

    statements: list[str] = []

    def note(conn: object, cursor: object, statement: str, *args: object) -> None:
        if not statement.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            statements.append(statement)

    counts: dict[str, dict[int, int]] = {"page": {}, "json": {}}
    headers = {"Cookie": f"auth.session_token={cookie}"}
    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        sides = dict(zip(("page", "json"), _urls(project), strict=True))
        for url in sides.values():  # warm: the session's sliding expiry, caches
            assert (await client.get(url, headers=headers)).status_code == 200
        for rows in (ROWS, 1):
            if rows == 1:
                conn = await asyncpg.connect(dsn)
                try:
                    await conn.execute(
                        "DELETE FROM issues WHERE project_id = $1 AND number > 1", project
                    )
                finally:
                    await conn.close()
            event.listen(database.engine.sync_engine, "before_cursor_execute", note)
            for side, url in sides.items():
                statements.clear()
                answer = await client.get(url, headers=headers)
                assert answer.status_code == 200, (url, answer.status_code)
                if side == "json":
                    assert len(answer.json()) == rows, (len(answer.json()), rows)
                counts[side][rows] = len(statements)
            event.remove(database.engine.sync_engine, "before_cursor_execute", note)
    await database.dispose()
    return counts


def main() -> None:
    describe(f"pages benchmark: the issues page of {ROWS} rows against the JSON list, cookie")
    with fresh_database("pages") as env:
        seeded = orjson.loads(seed(env, "soak", ROWS))
        headers = {"Cookie": f"auth.session_token={seeded['cookie']}"}
        project = seeded["projectId"]
        page_url, json_url = _urls(project)
        with serve("plumbline.app:create_app", env, factory=True) as base_url:
            html = httpx.get(base_url + page_url, headers=headers, timeout=60)
            assert html.status_code == 200, html.text[:300]
            shown = len(re.findall(r"sealant missing at curtain wall joint", html.text))
            assert shown == min(ROWS, 100), f"the page shows {shown} issues of {ROWS}"
            listed = httpx.get(base_url + json_url, headers=headers, timeout=60).json()
            assert len(listed) == min(ROWS, 100), len(listed)
            page_result = wrk(base_url + page_url, headers)
            json_result = wrk(base_url + json_url, headers)
            sizes = first_visit_bytes(base_url, html.text, headers)
        report(
            f"GET /app/projects/{{p}}/issues against GET /api/v1/projects/{{p}}/issues?limit=100"
            f" ({min(ROWS, 100)} rows, same cookie)",
            page_result,
            json_result,
            round(1 / COST_BAR, 2),
            name="issues page",
        )
        cost = json_result.requests_per_second / page_result.requests_per_second
        verdict = "meets" if cost <= COST_BAR else "misses"
        print(f"the page costs {cost:.2f}x the JSON list ({verdict} the bar {COST_BAR}x)")
        total = sum(sizes.values())
        for url, size in sizes.items():
            print(f"  {size:>8,} B  {url}")
        verdict = "meets" if total <= BYTES_BAR else "misses"
        print(
            f"CSS + JS of a first visit, gzipped as served: {total:,} B = {total / 1000:.1f} KB"
            f" in {len(sizes)} files ({verdict} the bar {BYTES_BAR // 1000} KB)"
        )
        os.environ.update(env)
        counts = asyncio.run(count_statements(project, seeded["cookie"], env["BENCH_DSN"]))
        fixed = True
        for side, by_rows in counts.items():
            listed_counts = ", ".join(f"{rows} rows: {n}" for rows, n in by_rows.items())
            grows = len(set(by_rows.values())) != 1
            fixed = fixed and not grows
            print(
                f"SQL statements per {side} request: {listed_counts} ({'GROWS' if grows else 'fixed'})"
            )
        if not fixed:
            sys.exit(1)


def check() -> None:
    """``main()`` at 3 rows, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_PAGE_ROWS": "3"})


if __name__ == "__main__":
    main()
