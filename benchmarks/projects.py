"""GET /api/v1/workspaces/{w}/projects against the raw asyncpg + orjson baseline.

``python -m benchmarks.projects`` (needs PostgreSQL on 127.0.0.1:5432 and wrk).
"""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
import orjson

from benchmarks.harness import fresh_database, report, serve, wrk

PROJECTS = int(os.environ.get("BENCH_PROJECTS", "100"))


def main() -> None:
    with fresh_database("projects") as env:
        seeded = orjson.loads(
            subprocess.run(
                [sys.executable, "-m", "benchmarks.seed", "projects", str(PROJECTS)],
                env=env,
                capture_output=True,
                check=True,
            ).stdout
        )
        headers = {"Cookie": f"auth.session_token={seeded['cookie']}"}
        workspace = seeded["workspaceId"]
        with serve("plumbline.app:create_app", env, factory=True) as app_url:
            url = f"{app_url}/api/v1/workspaces/{workspace}/projects"
            check = httpx.get(url, headers=headers)
            assert check.status_code == 200 and len(check.json()) == PROJECTS, check.text[:300]
            app = wrk(url, headers)
        with serve("benchmarks.baselines:projects_app", env, factory=False) as base_url:
            url = f"{base_url}/workspaces/{workspace}/projects"
            assert len(httpx.get(url, headers=headers).json()) == PROJECTS
            baseline = wrk(url, headers)
        report(f"GET /workspaces/{{w}}/projects ({PROJECTS} projects)", app, baseline)


if __name__ == "__main__":
    main()
