"""GET /api/v1/workspaces/{w}/projects against the raw asyncpg + orjson baseline.

``python -m benchmarks.projects`` (needs PostgreSQL on 127.0.0.1:5432 and wrk). What the
baseline does is described in ``benchmarks.baselines``; the two bodies are compared before
measuring.
"""

from __future__ import annotations

import os

import httpx
import orjson

from benchmarks.harness import describe, fresh_database, report, seed, serve, wrk

PROJECTS = int(os.environ.get("BENCH_PROJECTS", "100"))
TARGET = 0.5


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
        workspace = seeded["workspaceId"]
        with serve("plumbline.app:create_app", env, factory=True) as app_url:
            url = f"{app_url}/api/v1/workspaces/{workspace}/projects"
            check = httpx.get(url, headers=headers)
            assert check.status_code == 200 and len(check.json()) == PROJECTS, check.text[:300]
            app_body = check.json()
            app = wrk(url, headers)
        with serve("benchmarks.baselines:projects_app", env, factory=False) as base_url:
            url = f"{base_url}/workspaces/{workspace}/projects"
            check = httpx.get(url, headers=headers)
            assert check.status_code == 200, check.text[:300]
            assert check.json() == app_body, "the two list bodies differ"
            baseline = wrk(url, headers)
        report(
            f"GET /api/v1/workspaces/{{w}}/projects ({PROJECTS} projects)", app, baseline, TARGET
        )


if __name__ == "__main__":
    main()
