"""GET /api/v1/workspaces/{w}/projects against the raw asyncpg + orjson baseline.

``python -m benchmarks.projects`` (needs PostgreSQL on 127.0.0.1:5432 and wrk). What the
baseline does is described in ``benchmarks.baselines``; the two bodies are compared before
measuring. ``check()``: 101 projects, the default page (100 and a ``Link``), a page of 1,000
and one of 10, answered alike by both servers.
"""

from __future__ import annotations

import os
from typing import Any

import httpx
import orjson

from benchmarks.harness import describe, fresh_database, report, same, seed, serve, wrk

PROJECTS = int(os.environ.get("BENCH_PROJECTS", "100"))
TARGET = 0.5
SERVERS = (
    ("plumbline", "plumbline.app:create_app", True, "/api/v1"),
    ("baseline", "benchmarks.baselines:projects_app", False, ""),
)


def _page(base_url: str, prefix: str, path: str, query: str, headers: dict[str, str]) -> Any:
    """A page as both servers must answer it: body and ``Link`` (server and prefix left out)."""
    answer = httpx.get(f"{base_url}{prefix}{path}{query}", headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text[:300]
    link = answer.headers.get("link")
    return answer.json(), link and link.replace(f"{base_url}{prefix}", "")


def check() -> None:
    """Set-up and first requests: both servers answer the same pages."""
    with fresh_database("projects_check") as env:
        seeded = orjson.loads(seed(env, "projects", 101))
        headers = {"Cookie": f"auth.session_token={seeded['cookie']}"}
        path = f"/workspaces/{seeded['workspaceId']}/projects"
        pages = {}
        for name, app, factory, prefix in SERVERS:
            with serve(app, env, factory=factory) as base_url:
                pages[name] = [
                    _page(base_url, prefix, path, query, headers)
                    for query in ("", "?limit=1000", "?limit=10")
                ]
        default, whole, short = pages["plumbline"]
        assert len(default[0]) == 100 and default[1], "the default page: 100 rows and a Link"
        assert len(whole[0]) == 101 and whole[1] is None and len(short[0]) == 10
        same("the projects pages", pages["plumbline"], pages["baseline"])


def main() -> None:
    describe(f"projects benchmark: {PROJECTS} projects, session cookie")
    print(
        "baseline: cookie HMAC, one statement for session + user + membership of the live "
        "workspace, the list query; no transaction (see benchmarks/baselines.py). Corrected: "
        "it now also checks the e-mail verification, the deleted workspace, the restricted/"
        "external member rule and writes the sliding expiry, as the route does",
        flush=True,
    )
    with fresh_database("projects") as env:
        seeded = orjson.loads(seed(env, "projects", PROJECTS))
        headers = {"Cookie": f"auth.session_token={seeded['cookie']}"}
        path = f"/workspaces/{seeded['workspaceId']}/projects"
        query = f"?limit={PROJECTS}"
        bodies = {}
        results = {}
        for name, app, factory, prefix in SERVERS:
            with serve(app, env, factory=factory) as base_url:
                bodies[name] = _page(base_url, prefix, path, query, headers)
                assert len(bodies[name][0]) == PROJECTS, bodies[name][0][:1]
                results[name] = wrk(f"{base_url}{prefix}{path}{query}", headers)
        same("the projects list", bodies["plumbline"], bodies["baseline"])
        report(
            f"GET /api/v1/workspaces/{{w}}/projects ({PROJECTS} projects)",
            results["plumbline"],
            results["baseline"],
            TARGET,
        )


if __name__ == "__main__":
    main()
