"""GET and POST /api/v1/projects/{p}/issues against a raw asyncpg + orjson baseline.

``python -m benchmarks.issues`` needs PostgreSQL (``BENCH_DATABASE_URL``, default
``postgresql+asyncpg://postgres@127.0.0.1:5432/plumbline_bench``; the database is created and
dropped here) and, preferably, wrk (falls back to a bounded httpx loop). Loopback only.

Both servers run under uvicorn with one worker and authenticate the same API key. The baseline
is a bare ASGI app doing the same work by hand: look the key up by its hash, run the same list
query (which also tells which issues have reference photos; none are seeded, so neither side
runs the photo query), build the same camelCase JSON with orjson (the two bodies are compared
before measuring); for POST, one ``INSERT ... RETURNING`` that also takes the next
issue number. Rate limits are switched off for the run (600 reads/min per key otherwise).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import orjson

DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/plumbline_bench"
)
DURATION = int(os.environ.get("BENCH_SECONDS", "10"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "32"))
ISSUES = int(os.environ.get("BENCH_ISSUES", "1000"))
ONLY = os.environ.get("BENCH_ONLY", "")  # "list" or "create" runs just that pair
LIST_TARGET = 0.7
CREATE_TARGET = 0.5
CREATE_BODY = '{"title": "Benchmark issue", "priority": "HIGH", "location": "Level 2"}'


# ------------------------------------------------------------------ the raw baseline (ASGI)

_pool: Any = None

LIST_SQL = (
    "SELECT id, project_id, number, title, description, status, priority, issue_kind, "
    "assignee_id, due_date, location, file_id, file_version_id, page_number, pin, asset_id, "
    "work_order_type, maintenance_schedule_id, checklist, created_by, created_at, updated_at, "
    "status_changed_at, resolved_at, closed_at, EXISTS (SELECT 1 FROM attachments a "
    "WHERE a.entity_type = 'issue' AND a.entity_id = issues.id AND a.deleted_at IS NULL) "
    "FROM issues WHERE project_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT 1001"
)
PHOTOS_SQL = (
    "SELECT id, entity_id, file_name, content_type, size_bytes, storage_key, created_at, "
    "created_by FROM attachments WHERE entity_type = 'issue' AND entity_id = ANY($1::text[]) "
    "AND deleted_at IS NULL ORDER BY id"
)
KEY_SQL = (
    "SELECT project_id, scopes FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL "
    "AND (expires_at IS NULL OR expires_at > now())"
)
CREATE_SQL = (
    "WITH n AS (INSERT INTO project_counters (project_id, kind, value) VALUES ($1, 'issue', 1) "
    "ON CONFLICT (project_id, kind) DO UPDATE SET value = project_counters.value + 1 "
    "RETURNING value) "
    "INSERT INTO issues (id, project_id, workspace_id, number, title, description, status, "
    "priority, issue_kind, location, checklist, created_key_id, created_at, updated_at, "
    "status_changed_at) SELECT $2, $1, $3, n.value, $4, NULL, 'OPEN', $5, 'CONSTRUCTION', $6, "
    "'[]'::jsonb, $7, $8, $8, $8 FROM n "
    "RETURNING id, project_id, number, title, description, status, priority, issue_kind, "
    "assignee_id, due_date, location, file_id, file_version_id, page_number, pin, asset_id, "
    "work_order_type, maintenance_schedule_id, checklist, created_by, created_at, updated_at, "
    "status_changed_at, resolved_at, closed_at"
)


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def _issue(r: Any, photos: Any) -> dict[str, Any]:
    return {
        "id": r[0],
        "projectId": r[1],
        "number": r[2],
        "title": r[3],
        "description": r[4],
        "status": r[5],
        "priority": r[6],
        "issueKind": r[7],
        "assigneeId": r[8],
        "dueDate": r[9].isoformat() if r[9] is not None else None,
        "location": r[10],
        "fileId": r[11],
        "fileVersionId": r[12],
        "pageNumber": r[13],
        "pin": r[14],
        "assetId": r[15],
        "workOrderType": r[16],
        "maintenanceScheduleId": r[17],
        "checklist": r[18],
        "referencePhotos": photos,
        "createdBy": r[19],
        "createdAt": _iso(r[20]),
        "updatedAt": _iso(r[21]),
        "statusChangedAt": _iso(r[22]),
        "resolvedAt": _iso(r[23]),
        "closedAt": _iso(r[24]),
    }


async def _send(send: Any, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _init_connection(conn: Any) -> None:
    for name in ("json", "jsonb"):
        await conn.set_type_codec(
            name,
            encoder=lambda v: orjson.dumps(v).decode(),
            decoder=orjson.loads,
            schema="pg_catalog",
        )


async def _lifespan(receive: Any, send: Any) -> None:
    import asyncpg

    global _pool
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            _pool = await asyncpg.create_pool(
                os.environ["BENCH_DSN"], min_size=2, max_size=10, init=_init_connection
            )
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await _pool.close()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _body(receive: Any) -> bytes | None:
    """The request body, or None when the client went away first (wrk stopping)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def baseline_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """GET and POST /projects/{p}/issues, by hand."""
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    parts = scope["path"].strip("/").split("/")
    if len(parts) != 3 or parts[0] != "projects" or parts[2] != "issues":
        await _send(send, 200, b"{}")
        return
    project_id = parts[1]
    raw_key = dict(scope["headers"]).get(b"x-api-key", b"").decode()
    async with _pool.acquire() as conn:
        key = await conn.fetchrow(KEY_SQL, hashlib.sha256(raw_key.encode()).hexdigest())
        if key is None or key["project_id"] != project_id:
            await _send(send, 401, b'{"error":"Unauthorized"}')
            return
        if scope["method"] == "GET":
            rows = await conn.fetch(LIST_SQL, project_id)
            ids = [r[0] for r in rows if r[25]]
            photos: dict[str, list[Any]] = {}
            for p in await conn.fetch(PHOTOS_SQL, ids) if ids else ():
                photos.setdefault(p[1], []).append({"id": p[0], "fileName": p[2]})
            body = orjson.dumps([_issue(r, photos.get(r[0], ())) for r in rows])
        else:
            raw = await _body(receive)
            if raw is None:
                return
            payload = orjson.loads(raw)
            now = datetime.now(UTC)
            row = await conn.fetchrow(
                CREATE_SQL,
                project_id,
                os.urandom(16).hex(),
                os.environ["BENCH_WORKSPACE"],
                payload["title"],
                payload.get("priority", "MEDIUM"),
                payload.get("location"),
                None,
                now,
            )
            body = orjson.dumps(_issue(row, []))
    await _send(send, 200, body)


# ------------------------------------------------------------------------------ seeding


async def _seed() -> dict[str, str]:
    """Runs in a subprocess whose PLUMBLINE_DATABASE_URL is the benchmark database."""
    from sqlalchemy import insert

    from plumbline.db import database
    from plumbline.kit import clock, crypto
    from plumbline.kit.ids import new_id
    from plumbline.models import (
        ApiKey,
        Issue,
        Membership,
        Project,
        ProjectCounter,
        User,
        Workspace,
    )

    now = clock.now()
    raw = f"psk_{crypto.random_token(30)}"
    async with database.sessionmaker() as db:
        user = User(
            name="Bench",
            email="bench@example.com",
            email_verified=True,
            created_at=now,
            updated_at=now,
        )
        db.add(user)
        workspace = Workspace(name="Bench Co", slug="bench", created_at=now, updated_at=now)
        db.add(workspace)
        await db.flush()
        db.add(Membership(workspace_id=workspace.id, user_id=user.id, role="ADMIN", joined_at=now))
        project = Project(workspace_id=workspace.id, name="Tower", created_at=now, updated_at=now)
        db.add(project)
        await db.flush()
        db.add(
            ApiKey(
                project_id=project.id,
                workspace_id=workspace.id,
                name="bench",
                prefix=raw[:12],
                key_hash=crypto.sha256_hex(raw),
                scopes=["issues:read", "issues:write"],
                created_at=now,
            )
        )
        kinds = ("CONSTRUCTION", "WORK_ORDER")
        rows = [
            {
                "id": new_id(),
                "project_id": project.id,
                "workspace_id": workspace.id,
                "number": i + 1,
                "title": f"Issue {i + 1}: sealant missing at curtain wall joint",
                "description": "Observed during the walk-through; see drawing A-201." * 2,
                "status": ("OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED")[i % 4],
                "priority": ("LOW", "MEDIUM", "HIGH", "URGENT")[i % 4],
                "issue_kind": kinds[i % 2],
                "assignee_id": user.id if i % 3 == 0 else None,
                "due_date": (now + timedelta(days=i % 30)).date() if i % 2 else None,
                "location": f"Level {i % 12}",
                "page_number": 1 + i % 5,
                "pin": {"x": 0.25, "y": 0.75} if i % 2 else None,
                "work_order_type": "CORRECTIVE" if i % 2 else None,
                "checklist": [{"id": "c1", "label": "Photograph", "done": bool(i % 2)}],
                "created_by": user.id,
                "created_at": now,
                "updated_at": now,
                "status_changed_at": now,
                "resolved_at": now if i % 4 >= 2 else None,
                "closed_at": now if i % 4 == 3 else None,
            }
            for i in range(ISSUES)
        ]
        await db.execute(insert(Issue), rows)
        await db.execute(
            insert(ProjectCounter).values(project_id=project.id, kind="issue", value=ISSUES)
        )
        await db.commit()
    await database.dispose()
    return {"key": raw, "projectId": project.id, "workspaceId": workspace.id}


# ------------------------------------------------------------------------------ harness


def _plain_dsn(url: str, database: str | None = None) -> str:
    parts = urlsplit(url.replace("+asyncpg", ""))
    path = f"/{database}" if database is not None else parts.path
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


async def _admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(_plain_dsn(DATABASE_URL, "postgres"))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextmanager
def bench_database() -> Iterator[dict[str, str]]:
    """Creates the benchmark database, applies the migrations; drops it afterwards."""
    name = urlsplit(DATABASE_URL).path.lstrip("/")
    if not name.replace("_", "").isalnum():
        raise SystemExit(f"refusing database name {name!r}")
    asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    var = Path(tempfile.mkdtemp(prefix="plumbline-bench-"))
    env = {
        **os.environ,
        "PLUMBLINE_DATABASE_URL": DATABASE_URL,
        "PLUMBLINE_VAR_DIR": str(var),
        "PLUMBLINE_STORAGE_DIR": str(var / "objects"),
        "PLUMBLINE_OUTBOX_DIR": str(var / "outbox"),
        "PLUMBLINE_SECRET_KEY": "benchmark-secret",
        "PLUMBLINE_LOG_LEVEL": "WARNING",
        "PLUMBLINE_RATE_LIMITS": "false",
        "BENCH_DSN": _plain_dsn(DATABASE_URL),
    }
    for unset in ("PLUMBLINE_REDIS_URL", "PLUMBLINE_SMTP_URL", "PLUMBLINE_BILLING"):
        env.pop(unset, None)
    try:
        subprocess.run(
            [sys.executable, "-m", "plumbline.cli", "db", "upgrade"],
            env=env,
            check=True,
            capture_output=True,
        )
        yield env
    finally:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        shutil.rmtree(var, ignore_errors=True)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(app: str, env: dict[str, str], *, factory: bool) -> Iterator[str]:
    """``uvicorn <app>`` with one worker on a free loopback port."""
    port = _free_port()
    args = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port)]
    args += ["--workers", "1", "--log-level", "warning", "--no-access-log"]
    process = subprocess.Popen([*args, "--factory"] if factory else args, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url + "/", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"{app} did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def _load_generator() -> str:
    """wrk when installed (or installable from the Debian archive), else the httpx loop."""
    if shutil.which("wrk"):
        return "wrk"
    if shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], capture_output=True, check=False)
    return "wrk" if shutil.which("wrk") else "httpx"


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def _wrk(url: str, headers: dict[str, str], method: str, body: str | None) -> dict[str, float]:
    import re

    lines = [f'wrk.method = "{method}"']
    lines += [f'wrk.headers["{k}"] = "{v}"' for k, v in headers.items()]
    if body is not None:
        lines.append(f"wrk.body = [[{body}]]")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write("\n".join(lines) + "\n")
    try:
        out = subprocess.run(
            [
                "wrk",
                "-t1",
                f"-c{CONNECTIONS}",
                f"-d{DURATION}s",
                "--timeout",
                "30s",
                "--latency",
                "-s",
                script.name,
                url,
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=DURATION + 60,
        ).stdout
    finally:
        os.unlink(script.name)

    def find(pattern: str) -> re.Match[str]:
        match = re.search(pattern, out)
        if match is None:
            raise RuntimeError(f"unexpected wrk output:\n{out}")
        return match

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: .*timeout (\d+)", out)
    return {
        "rps": float(find(r"Requests/sec:\s+([\d.]+)").group(1)),
        "p50": _ms(*find(r"50%\s+([\d.]+)(us|ms|s)").groups()),
        "p99": _ms(*find(r"99%\s+([\d.]+)(us|ms|s)").groups()),
        "errors": float(errors.group(1)) if errors else 0.0,
        "timeouts": float(socket_errors.group(1)) if socket_errors else 0.0,
    }


async def _httpx_loop(
    url: str, headers: dict[str, str], method: str, body: str | None
) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    deadline = time.monotonic() + DURATION
    limits = httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:

        async def worker() -> None:
            nonlocal errors
            while time.monotonic() < deadline:
                start = time.perf_counter()
                response = await client.request(method, url, headers=headers, content=body)
                latencies.append((time.perf_counter() - start) * 1000)
                errors += response.status_code >= 400

        started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
        elapsed = time.monotonic() - started
    latencies.sort()
    return {
        "rps": len(latencies) / elapsed,
        "p50": latencies[len(latencies) // 2],
        "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "errors": float(errors),
    }


def measure(
    tool: str, url: str, headers: dict[str, str], method: str = "GET", body: str | None = None
) -> dict[str, float]:
    if tool == "wrk":
        return _wrk(url, headers, method, body)
    return asyncio.run(_httpx_loop(url, headers, method, body))


def report(title: str, app: dict[str, float], base: dict[str, float], target: float) -> float:
    ratio = app["rps"] / base["rps"]
    verdict = "meets" if ratio >= target else "misses"
    print(
        f"\n{title}\n"
        f"  {'':10} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8} {'timeouts':>8}\n"
        + "".join(
            f"  {name:10} {r['rps']:>9.1f} {r['p50']:>8.2f} {r['p99']:>8.2f}"
            f" {int(r['errors']):>8} {int(r.get('timeouts', 0)):>8}\n"
            for name, r in (("plumbline", app), ("baseline", base))
        )
        + f"  ratio plumbline/baseline: {ratio:.2f} ({verdict} the {target} target)",
        flush=True,
    )
    return ratio


def main() -> None:
    tool = _load_generator()
    print(
        f"issues benchmark: {ISSUES} issues, {tool}, {CONNECTIONS} connections, "
        f"{DURATION} s per run, one uvicorn worker each",
        flush=True,
    )
    with bench_database() as env:
        seeded = orjson.loads(
            subprocess.run(
                [sys.executable, "-m", "benchmarks.issues", "--seed"],
                env=env,
                capture_output=True,
                check=True,
            ).stdout
        )
        env["BENCH_WORKSPACE"] = seeded["workspaceId"]
        headers = {"x-api-key": seeded["key"]}
        post_headers = {**headers, "Content-Type": "application/json"}
        path = f"/projects/{seeded['projectId']}/issues"
        results: dict[str, dict[str, dict[str, float]]] = {"list": {}, "create": {}}
        bodies: dict[str, Any] = {}
        servers = (
            ("plumbline", "plumbline.app:create_app", True, "/api/v1"),
            ("baseline", "benchmarks.issues:baseline_app", False, ""),
        )
        if ONLY in ("", "list"):
            for name, app, factory, prefix in servers:
                with serve(app, env, factory=factory) as base_url:
                    url = f"{base_url}{prefix}{path}"
                    check = httpx.get(url, headers=headers, timeout=30)
                    assert check.status_code == 200, check.text[:300]
                    assert len(check.json()) == ISSUES
                    bodies[name] = check.json()
                    results["list"][name] = measure(tool, url, headers)
            assert bodies["plumbline"] == bodies["baseline"], "the two list bodies differ"
            report(
                f"GET /api/v1/projects/{{p}}/issues ({ISSUES} issues, referencePhotos included)",
                results["list"]["plumbline"],
                results["list"]["baseline"],
                LIST_TARGET,
            )
        if ONLY in ("", "create"):
            for name, app, factory, prefix in servers:
                with serve(app, env, factory=factory) as base_url:
                    url = f"{base_url}{prefix}{path}"
                    made = httpx.post(url, headers=post_headers, content=CREATE_BODY, timeout=30)
                    assert made.status_code == 200 and made.json()["priority"] == "HIGH", made.text
                    results["create"][name] = measure(tool, url, post_headers, "POST", CREATE_BODY)
            report(
                "POST /api/v1/projects/{p}/issues",
                results["create"]["plumbline"],
                results["create"]["baseline"],
                CREATE_TARGET,
            )


if __name__ == "__main__":
    if "--seed" in sys.argv:
        sys.stdout.write(orjson.dumps(asyncio.run(_seed())).decode())
    else:
        main()
