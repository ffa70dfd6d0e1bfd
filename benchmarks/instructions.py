"""Instructions per request of the issue create (or list), counted under callgrind.

``python -m benchmarks.instructions`` (needs PostgreSQL on 127.0.0.1:5432 and valgrind). Each
app is driven in process as in ``benchmarks.cpu``, warmed up, then counted for
BENCH_INSTR_REQUESTS requests with callgrind's instrumentation switched on for just those.
valgrind counts the instructions the process executes in user space, not seconds: the same code
gives the same count to within half a percent however busy the machine is, where times move by
10%. That makes it the tool for deciding whether a change to the request path helps (run it
before and after). It leaves out the kernel's work (sockets, the event loop's waits), which is a
larger share of the baseline's time than of the app's, so its ratio is not the throughput ratio.
``BENCH_INSTR_ROUTE=list`` counts GET /api/v1/projects/{p}/issues over BENCH_ISSUES (1,000)
issues instead, for the app and the baseline only (the floors serve the create alone);
``BENCH_INSTR_ROUTE=projects`` GET /api/v1/workspaces/{w}/projects over BENCH_PROJECTS (100),
session cookie, for the app, the baseline and the two floors of ``BENCH_FLOOR_ROUTE=projects
python -m benchmarks.floor`` (``fastapi+sqlalchemy``: one route; ``behind-routes``: the same
route behind the routes the app tries first). ``BENCH_INSTR_OUT=DIR`` keeps callgrind's
output per app (``DIR/callgrind.<app>``) for ``callgrind_annotate``.
"""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson

from benchmarks.cpu import App, _post, served
from benchmarks.harness import CHECKING, check_main, fresh_database, seed

ROUTE = os.environ.get("BENCH_INSTR_ROUTE", "create")
REQUESTS = int(os.environ.get("BENCH_INSTR_REQUESTS", "300" if ROUTE == "create" else "40"))
ISSUES = int(os.environ.get("BENCH_ISSUES", "1000"))
PROJECTS = int(os.environ.get("BENCH_PROJECTS", "100"))
# plumbline, the baseline, and the floors of benchmarks.floor (the same work on FastAPI and/or
# SQLAlchemy Core alone)
APPS = os.environ.get(
    "BENCH_INSTR_APPS",
    "plumbline,baseline,fastapi+asyncpg,asgi+sqlalchemy,fastapi+sqlalchemy"
    if ROUTE == "create"
    else "plumbline,baseline"
    if ROUTE == "list"
    else "plumbline,baseline,fastapi+sqlalchemy,behind-routes",
).split(",")
OUT = os.environ.get("BENCH_INSTR_OUT")
WARM_UP = 150 if ROUTE == "create" else 20


async def _get(app: App, path: str, key: str) -> int:
    credential = (b"cookie", f"auth.session_token={key}".encode())
    if ROUTE != "projects":
        credential = (b"x-api-key", key.encode())
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1"), credential],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    statuses: list[int] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    return statuses[0]


_call = _post if ROUTE == "create" else _get


@asynccontextmanager
async def _served_projects(which: str, seeded: dict[str, str]) -> AsyncIterator[tuple[App, str]]:
    """The projects list's app (``plumbline``, ``baseline`` or a floor) and its path."""
    path = f"/workspaces/{seeded['workspaceId']}/projects"
    if which == "plumbline":
        from plumbline.app import create_app

        yield create_app(), f"/api/v1{path}"
        return
    from benchmarks import baselines, floor

    apps: dict[str, tuple[Any, Any]] = {
        "baseline": (lambda: baselines.projects_app, floor.pool_open),
        "fastapi+sqlalchemy": (floor.projects_fastapi_sqlalchemy, floor.engine_open),
        "behind-routes": (floor.projects_behind_routes, floor.engine_open),
    }
    make, opened = apps[which]
    async with opened():
        yield make(), path


async def _count(which: str, seeded: dict[str, str]) -> None:
    """One side, under callgrind: warm up, then wait for the parent to switch counting on."""
    serving = _served_projects if ROUTE == "projects" else served
    async with serving(which, seeded) as (app, path):
        key = seeded["cookie"] if ROUTE == "projects" else seeded["key"]
        for _ in range(WARM_UP):
            status = await _call(app, path, key)
            assert status == 200, status
        gc.collect()
        gc.freeze()
        print("ready", flush=True)
        sys.stdin.readline()
        for _ in range(REQUESTS):
            await _call(app, path, key)
        print("done", flush=True)
        sys.stdin.readline()


def _instructions(which: str, env: dict[str, str], module: str = "benchmarks.instructions") -> int:
    """Instructions ``python -m module --one which`` executes between printing ``ready`` and
    ``done`` (each answered by a line on its stdin once counting is switched). When checking,
    the same process without valgrind, and a count of 1."""
    callgrind = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={os.path.join(OUT, f'callgrind.{which}') if OUT else '/dev/null'}",
    ]
    process = subprocess.Popen(
        [*([] if CHECKING else callgrind), sys.executable, "-m", module, "--one", which],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    for switch, expected in (("on", "ready"), ("off", "done")):
        line = process.stdout.readline().strip()
        if line != expected:
            process.kill()
            raise RuntimeError(f"{which}: expected {expected!r}, got {line!r}")
        if not CHECKING:
            control = ["callgrind_control", "-i", switch, str(process.pid)]
            subprocess.run(control, check=True, capture_output=True)
        process.stdin.write("\n")
        process.stdin.flush()
    _, err = process.communicate(timeout=120)
    if CHECKING:
        if process.returncode != 0:
            raise RuntimeError(f"{which} failed:\n{err[-2000:]}")
        return 1
    collected = re.search(r"Collected : (\d+)", err)
    if process.returncode != 0 or collected is None:
        raise RuntimeError(f"{which} under callgrind failed:\n{err[-2000:]}")
    return int(collected.group(1))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        import uvloop

        uvloop.run(_count(sys.argv[2], orjson.loads(os.environ["BENCH_SEEDED"])))
        return
    what = {
        "create": "POST /api/v1/projects/{p}/issues",
        "list": f"GET /api/v1/projects/{{p}}/issues ({ISSUES} issues)",
        "projects": f"GET /api/v1/workspaces/{{w}}/projects ({PROJECTS} projects)",
    }[ROUTE]
    print(
        f"Instructions per request, in process under callgrind: {what}, "
        f"{REQUESTS} requests after {WARM_UP} to warm up",
        flush=True,
    )
    with fresh_database("instructions") as env:
        if ROUTE == "projects":
            seeded = seed(env, "projects", PROJECTS)
        else:
            seeded = seed(env, "issues", 10 if ROUTE == "create" else ISSUES)
        counts = {
            which: _instructions(which, {**env, "BENCH_SEEDED": seeded}) / REQUESTS
            for which in APPS
        }
    for which, count in counts.items():
        ratio = (
            f"  ratio (baseline / it) {counts['baseline'] / count:.2f}"
            if "baseline" in counts
            else ""
        )
        print(f"  {which:18} {count / 1000:8,.0f} k instructions{ratio}", flush=True)


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_INSTR_ROUTE": "create", "BENCH_INSTR_REQUESTS": "2"})
    check_main(
        __name__,
        {"BENCH_INSTR_ROUTE": "projects", "BENCH_INSTR_REQUESTS": "2", "BENCH_PROJECTS": "5"},
    )


if __name__ == "__main__":
    main()
