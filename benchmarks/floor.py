"""The stack's own floor for POST /projects/{p}/issues: what FastAPI and SQLAlchemy cost before
any of Plumbline's code runs.

``python -m benchmarks.floor`` (needs PostgreSQL on 127.0.0.1:5432 and wrk). The baseline's
create (``baselines.create_issue``: the same statements, checks and response) is served five
ways, each driven by wrk in turn in the same run, and each figure is printed against the bare
one:

- ``baseline``: a bare ASGI app on asyncpg (``baselines.issues_app``);
- ``fastapi+asyncpg``: one FastAPI route, its body validated by Plumbline's ``IssueCreate``,
  the work on asyncpg: FastAPI's floor;
- ``asgi+sqlalchemy``: the bare ASGI app, the work on a SQLAlchemy ``AsyncConnection`` running
  the same SQL as ``text()`` statements (compiled once, cached): SQLAlchemy Core's floor;
- ``fastapi+sqlalchemy``: both, the least a FastAPI + SQLAlchemy route can cost for this work;
- ``plumbline``: the real route.

Each floor does less than a real route of the stack would (no ORM, no dependencies beyond the
body, no error tree, no middleware), so a ratio the floor misses cannot be reached by tuning the
route. ``benchmarks.instructions`` counts the same five in process.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
from fastapi import APIRouter, FastAPI, Request, Response
from sqlalchemy import DateTime, String, bindparam, column, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.sql.elements import TextClause
from sqlalchemy.sql.selectable import TextualSelect

from benchmarks import baselines
from benchmarks.harness import check_main, describe, fresh_database, report, seed, serve, wrk
from plumbline.app import TELEMETRY_OFF
from plumbline.issue.schemas import IssueCreate

TARGET = 0.5  # the create's target (benchmarks.issues)
# name, ASGI app for uvicorn, factory, path prefix
SERVERS = (
    ("baseline", "benchmarks.baselines:issues_app", False, ""),
    ("fastapi+asyncpg", "benchmarks.floor:fastapi_asyncpg", False, ""),
    ("asgi+sqlalchemy", "benchmarks.floor:asgi_sqlalchemy", False, ""),
    ("fastapi+sqlalchemy", "benchmarks.floor:fastapi_sqlalchemy", False, ""),
    ("plumbline", "plumbline.app:create_app", True, "/api/v1"),
)
BODY = '{"title": "Benchmark issue", "priority": "HIGH", "location": "Level 2"}'

# ------------------------------------------------------------------------ SQLAlchemy Core

_engine: AsyncEngine | None = None
_TIME = DateTime(timezone=True)
# The key statement's columns, typed as the app's models type them (JSONB parsed by orjson).
_KEY_COLUMNS = (
    column("key_id", String),
    column("key_project_id", String),
    column("scopes", JSONB),
    column("revoked_at", _TIME),
    column("expires_at", _TIME),
    column("last_used_at", _TIME),
    column("project_id", String),
    column("workspace_id", String),
    column("modules", JSONB),
    column("live_workspace_id", String),
)


def open_engine() -> AsyncEngine:
    """The app's engine settings: a fixed pool of the baseline's size, orjson for JSON."""
    return create_async_engine(
        os.environ["PLUMBLINE_DATABASE_URL"],
        pool_size=baselines.POOL_SIZE,
        max_overflow=0,
        json_serializer=lambda v: orjson.dumps(v).decode(),
        json_deserializer=orjson.loads,
    )


@functools.cache
def _statement(sql: str) -> TextClause | TextualSelect:
    """The baseline's SQL as a ``text()`` statement: ``$n`` parameters named ``pn``."""
    statement = text(re.sub(r"\$(\d+)", r":p\1", sql))
    if sql == baselines.KEY_PROJECT_SQL:
        return statement.columns(*_KEY_COLUMNS)
    if sql == baselines.INSERT_SQL:
        return statement.bindparams(bindparam("p16", type_=JSONB), bindparam("p19", type_=JSONB))
    return statement


class CoreConnection:
    """asyncpg's ``fetchrow``/``fetchval``/``execute`` on a SQLAlchemy ``AsyncConnection``."""

    def __init__(self, connection: AsyncConnection) -> None:
        self.connection = connection

    async def _run(self, sql: str, args: tuple[Any, ...]) -> Any:
        params = {f"p{n}": value for n, value in enumerate(args, 1)}
        return await self.connection.execute(_statement(sql), params)

    async def fetchrow(self, sql: str, *args: Any) -> Row[Any] | None:
        return (await self._run(sql, args)).first()

    async def fetch(self, sql: str, *args: Any) -> list[Row[Any]]:
        return list((await self._run(sql, args)).all())

    async def fetchval(self, sql: str, *args: Any) -> Any:
        return (await self._run(sql, args)).scalar()

    async def execute(self, sql: str, *args: Any) -> None:
        await self._run(sql, args)


@asynccontextmanager
async def core_transaction() -> AsyncIterator[CoreConnection]:
    assert _engine is not None
    async with _engine.begin() as connection:
        yield CoreConnection(connection)


@asynccontextmanager
async def core_autocommit() -> AsyncIterator[CoreConnection]:
    """A connection without a transaction, as the app's read-only routes run (``db.py``)."""
    assert _engine is not None
    async with _engine.connect() as connection:
        await connection.execution_options(isolation_level="AUTOCOMMIT")
        yield CoreConnection(connection)


@asynccontextmanager
async def engine_open() -> AsyncIterator[None]:
    global _engine
    _engine = open_engine()
    try:
        yield
    finally:
        await _engine.dispose()


@asynccontextmanager
async def pool_open() -> AsyncIterator[None]:
    baselines._pool = await baselines.open_pool()
    try:
        yield
    finally:
        await baselines._pool.close()


# ------------------------------------------------------------------------------ the apps


async def asgi_sqlalchemy(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The baseline's bare ASGI create, its work on SQLAlchemy Core."""
    if scope["type"] == "lifespan":
        await receive()  # startup
        async with engine_open():
            await send({"type": "lifespan.startup.complete"})
            await receive()  # shutdown
        await send({"type": "lifespan.shutdown.complete"})
        return
    parts = scope["path"].strip("/").split("/")
    if len(parts) != 3 or scope["method"] != "POST":
        await baselines._send(send, 200, b"{}")  # the harness's "is it up" probe
        return
    await baselines.answer_create(scope, receive, send, parts[1], core_transaction)


def _fields(body: IssueCreate) -> dict[str, Any]:
    """The validated body as ``baselines.create_issue`` takes it (the same fields it handles)."""
    given = body.model_dump(by_alias=True)  # the request's camelCase names
    for name in baselines.NOT_REPRODUCED:
        if given[name]:
            raise baselines.Refused(400, f"Invalid {name}", "VALIDATION_FAILED")
    return {
        "title": body.title,
        "description": body.description,
        "status": body.status,
        "priority": body.priority,
        "issueKind": body.issue_kind,
        "location": body.location,
        "workOrderType": "CORRECTIVE" if body.issue_kind == "WORK_ORDER" else None,
    }


def _fastapi(transaction: baselines.Transaction, opened: Any) -> FastAPI:
    """One FastAPI route doing the baseline's create in ``transaction()``."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with opened():
            yield

    app = FastAPI(lifespan=lifespan, telemetry=TELEMETRY_OFF)  # as the app runs

    @app.post("/projects/{projectId}/issues")
    async def create(projectId: str, body: IssueCreate, request: Request) -> Response:
        request_id = baselines._new_id()
        client = request.client
        try:
            async with transaction() as conn:
                issue = await baselines.create_issue(
                    conn,
                    request.headers.get("x-api-key") or "",
                    projectId,
                    lambda: _fields(body),
                    request_id,
                    client.host if client else None,
                )
        except baselines.Refused as refused:
            error = {"error": refused.message, "code": refused.code}
            return Response(orjson.dumps(error), refused.status, media_type="application/json")
        return Response(
            orjson.dumps(issue), media_type="application/json", headers={"x-request-id": request_id}
        )

    return app


fastapi_asyncpg = _fastapi(baselines._transaction, pool_open)
fastapi_sqlalchemy = _fastapi(core_transaction, engine_open)

# --------------------------------------------------------- GET /workspaces/{w}/projects floors

PROJECTS_PATH = "/workspaces/{workspaceId}/projects"


def _routers_ahead() -> list[list[tuple[str, set[str]]]]:
    """The path and methods of every route Plumbline's app tries before its projects list,
    router by router as ``api.py`` includes them (the last group: the project router's own
    routes before the list)."""
    from fastapi.routing import APIRoute

    from plumbline.app import create_app

    groups: list[list[tuple[str, set[str]]]] = []
    for included in create_app().routes:
        router = getattr(included, "original_router", None)
        if router is None:
            continue
        group: list[tuple[str, set[str]]] = []
        for route in router.routes:
            if not isinstance(route, APIRoute):
                continue
            methods = set(route.methods or ())
            if route.path == PROJECTS_PATH and "GET" in methods:
                return [*groups, group]
            group.append((route.path, methods))
        groups.append(group)
    raise RuntimeError("no projects list route")


def _projects_floor(routes_ahead: bool) -> FastAPI:
    """The baseline's projects list (``baselines.list_projects``) as one FastAPI route on
    SQLAlchemy Core without a transaction; ``routes_ahead``: behind routers holding routes with
    the paths and methods of those Plumbline's app tries first (empty endpoints), included in
    the same order, so FastAPI's matching costs what it costs in the app."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with engine_open():
            yield

    app = FastAPI(lifespan=lifespan, telemetry=TELEMETRY_OFF)
    groups = _routers_ahead() if routes_ahead else [[]]

    async def elsewhere() -> Response:
        return Response(b"{}", media_type="application/json")

    for group in groups[:-1]:
        router = APIRouter()
        for path, methods in group:
            router.add_api_route(path, elsewhere, methods=sorted(methods))
        app.include_router(router)
    router = APIRouter()
    for path, methods in groups[-1]:
        router.add_api_route(path, elsewhere, methods=sorted(methods))

    @router.get(PROJECTS_PATH)
    async def list_projects(workspaceId: str, request: Request) -> Response:
        async with core_autocommit() as conn:
            status, body, headers = await baselines.list_projects(
                conn,
                request.cookies.get("auth.session_token"),
                workspaceId,
                baselines.ListPage(str(request.url.replace(query="")), request.url.query),
            )
        return Response(
            body,
            status,
            headers={k.decode(): v.decode() for k, v in headers},
            media_type="application/json",
        )

    app.include_router(router)
    return app


def projects_fastapi_sqlalchemy() -> FastAPI:
    return _projects_floor(routes_ahead=False)


def projects_behind_routes() -> FastAPI:
    return _projects_floor(routes_ahead=True)


PROJECT_SERVERS = (
    ("baseline", "benchmarks.baselines:projects_app", False, ""),
    ("fastapi+sqlalchemy", "benchmarks.floor:projects_fastapi_sqlalchemy", True, ""),
    ("same, behind the app's routes", "benchmarks.floor:projects_behind_routes", True, ""),
    ("plumbline", "plumbline.app:create_app", True, "/api/v1"),
)


def projects_main() -> None:
    """``BENCH_FLOOR_ROUTE=projects``: the projects list's floors (``benchmarks.projects``'
    seed and baseline), each against the baseline and Plumbline's route against each floor."""
    import httpx

    projects = int(os.environ.get("BENCH_PROJECTS", "100"))
    describe(f"floor: GET /workspaces/{{w}}/projects ({projects} projects, session cookie)")
    with fresh_database("floor_projects") as env:
        seeded = orjson.loads(seed(env, "projects", projects))
        headers = {"Cookie": f"auth.session_token={seeded['cookie']}"}
        path = f"/workspaces/{seeded['workspaceId']}/projects"
        results, bodies = {}, {}
        for name, app, factory, prefix in PROJECT_SERVERS:
            with serve(app, env, factory=factory) as base_url:
                url = f"{base_url}{prefix}{path}"
                check = httpx.get(url, headers=headers, timeout=30)
                assert check.status_code == 200, f"{name}: {check.text[:300]}"
                bodies[name] = check.json()
                results[name] = wrk(url, headers)
        assert all(body == bodies["baseline"] for body in bodies.values()), "bodies differ"
    for name, *_ in PROJECT_SERVERS[1:]:
        report(
            f"GET /workspaces/{{w}}/projects: {name}", results[name], results["baseline"], name=name
        )
    ours = results["plumbline"].requests_per_second
    for name, *_ in PROJECT_SERVERS[1:3]:
        floor = results[name].requests_per_second
        verdict = "meets" if ours / floor >= 0.85 else "misses"
        print(f"plumbline / {name}: {ours / floor:.2f} ({verdict} 0.85)", flush=True)


def main() -> None:
    if os.environ.get("BENCH_FLOOR_ROUTE") == "projects":
        projects_main()
        return
    import httpx

    from benchmarks.issues import _stable as stable
    from benchmarks.issues import _writes

    describe("floor: the issue create served by FastAPI and SQLAlchemy alone")
    with fresh_database("floor") as env:
        seeded = orjson.loads(seed(env, "issues", 10))
        headers = {"x-api-key": seeded["key"], "Content-Type": "application/json"}
        path = f"/projects/{seeded['projectId']}/issues"
        results, bodies = {}, {}
        for name, app, factory, prefix in SERVERS:
            with serve(app, env, factory=factory) as base_url:
                url = f"{base_url}{prefix}{path}"
                check = httpx.post(url, headers=headers, content=BODY, timeout=30)
                assert check.status_code == 200, f"{name}: {check.text[:300]}"
                bodies[name] = stable(check.json())
                results[name] = wrk(url, headers, method="POST", body=BODY)
            issues, audited = asyncio.run(_writes(env["BENCH_DSN"]))
            assert issues == audited, f"{name}: {issues} issues but {audited} audit rows"
        assert all(body == bodies["baseline"] for body in bodies.values()), bodies
    for name, *_ in SERVERS[1:]:
        report(
            f"POST /projects/{{p}}/issues: {name}", results[name], results["baseline"], TARGET, name
        )


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_FLOOR_ROUTE": ""})
    check_main(__name__, {"BENCH_FLOOR_ROUTE": "projects", "BENCH_PROJECTS": "5"})


if __name__ == "__main__":
    main()
