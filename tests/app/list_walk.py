"""Every list route of the OpenAPI (a GET under /api/v1 answering a JSON array) called as a
client pages it, newest first and in updatedSince mode, each a first page and the next one, with
what it sent to the database: ``test_list_plans`` (generic plans) and ``test_read_only_lists``
(no transaction, statement counts) walk it.

The rows come from ``sync_routes.ROUTES`` (two of each list, so a page of one has a next page).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import event

from plumbline.db import database
from plumbline.kit import clock
from tests.app.sync_routes import NOT_SYNCED, ROUTES, Ctx
from tests.factories import om_world

# The lists that are not collections to page (sync_routes.NOT_SYNCED), called once as they are.
UNPAGED = {
    "/api/v1/projects/{projectId}/audit-logs/export": {"format": "json"},
    "/api/v1/cloud/connections": {},
}
# Filters whose statements the walk also sends (values need not match: plans are made without).
FILTERS: dict[str, tuple[str, ...]] = {
    "/api/v1/projects/{projectId}/issues": ("status=OPEN", "assigneeId=someone"),
    "/api/v1/projects/{projectId}/audit-logs": ("entityId=something",),
    "/api/v1/me/notifications": ("unreadOnly=true",),
    "/api/v1/projects/{projectId}/folders": ("parentId=root",),
    "/api/v1/projects/{projectId}/files": ("folderId=root",),
}
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "START")


def list_routes(spec: dict[str, Any]) -> set[str]:
    """GET routes under /api/v1 answering a JSON array."""
    found = set()
    for path, item in spec["paths"].items():
        operation = item.get("get")
        if operation is None or not path.startswith("/api/v1/"):
            continue
        content = operation["responses"].get("200", {}).get("content", {})
        if content.get("application/json", {}).get("schema", {}).get("type") == "array":
            found.add(path)
    return found


@dataclass
class Call:
    """One request of the walk and what it sent: the statements SQLAlchemy executed (with their
    parameters) and, on PostgreSQL, every query the server received (transaction control
    included, which SQLAlchemy's events do not show on asyncpg)."""

    path: str
    mode: str  # "first", "next", "since first", "since next", "once"
    status: int = 0
    statements: list[tuple[str, Any]] = field(default_factory=list)
    received: list[str] = field(default_factory=list)

    @property
    def transaction_control(self) -> list[str]:
        sent = [s for s, _ in self.statements] + self.received
        return [s for s in sent if s.lstrip().upper().startswith(TRANSACTION_CONTROL)]


class Recorder:
    """Records what each request sends, on any backend; on PostgreSQL also what each pooled
    asyncpg connection sends (its query logger)."""

    def __init__(self) -> None:
        self.call: Call | None = None
        # asyncpg connection -> its logger; what each received while a call ran
        self._logged: dict[Any, Callable[[Any], None]] = {}
        self._received: list[tuple[Any, str]] = []
        self._used: set[Any] = set()

    def _on_execute(self, conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if self.call is not None:
            self.call.statements.append((statement, params))
            self._used.add(conn.connection.driver_connection)

    def _on_checkout(self, dbapi_connection: Any, *_: Any) -> None:
        raw: Any = getattr(dbapi_connection, "driver_connection", None)
        if hasattr(raw, "add_query_logger") and raw not in self._logged:

            def logged(record: Any) -> None:
                if self.call is not None:
                    self._received.append((raw, record.query))

            raw.add_query_logger(logged)
            self._logged[raw] = logged

    @contextmanager
    def listening(self) -> Iterator[Recorder]:
        engine = database.engine.sync_engine
        event.listen(engine, "before_cursor_execute", self._on_execute)
        event.listen(engine.pool, "checkout", self._on_checkout)
        try:
            yield self
        finally:
            event.remove(engine, "before_cursor_execute", self._on_execute)
            event.remove(engine.pool, "checkout", self._on_checkout)
            for raw, logged in self._logged.items():
                raw.remove_query_logger(logged)
            self._logged.clear()

    async def get(
        self, client: httpx.AsyncClient, call: Call, url: str, headers: dict[str, str]
    ) -> httpx.Response:
        response = await self.send(client, call, "GET", url, headers)
        assert response.status_code == 200, (url, response.text)
        return response

    async def send(
        self,
        client: httpx.AsyncClient,
        call: Call,
        method: str,
        url: str,
        headers: dict[str, str],
        **kwargs: Any,
    ) -> httpx.Response:
        await asyncio.sleep(0)  # asyncpg calls its query loggers soon after each query
        self.call, self._received, self._used = call, [], set()
        try:
            response = await client.request(method, url, headers=headers, **kwargs)
            await asyncio.sleep(0)
        finally:
            self.call = None
        # Jobs of earlier requests may run meanwhile on other connections: only the request's
        call.received = [query for raw, query in self._received if raw in self._used]
        call.status = response.status_code
        return response


def _next(response: httpx.Response) -> str:
    link = response.headers["link"]
    return link[1 : link.index(">")]


async def walk(client: httpx.AsyncClient, outbox: Path, spec: dict[str, Any]) -> list[Call]:
    """Calls every list route of ``spec`` (the sync settle window must be 0)."""
    lists = list_routes(spec)
    assert lists == set(ROUTES) | NOT_SYNCED, "a list route the walk does not know"
    assert set(UNPAGED) == NOT_SYNCED and set(FILTERS) <= set(ROUTES)
    ctx = Ctx(client, await om_world(), outbox)
    start = clock.now()
    recorder = Recorder()
    calls: list[Call] = []
    with recorder.listening():
        # What the server receives is heard: a write's transaction shows.
        write = Call("/api/v1/projects/{projectId}/issues", "write")
        url = ctx.url(write.path)
        await recorder.send(
            client, write, "POST", url, ctx.world.owner.headers, json={"title": "T"}
        )
        assert write.status == 200 and write.transaction_control, write
        if database.engine.dialect.name == "postgresql":
            assert write.received[0].startswith("BEGIN"), write.received
        for path, route in ROUTES.items():
            if route.params is not None:
                await route.params(ctx)
            for _ in range(2):
                await route.make(ctx)
            headers = {} if route.actor == "public" else getattr(ctx.world, route.actor).headers
            since = clock.iso(start - timedelta(seconds=1))
            for mode, query in (("", "limit=1"), ("since ", f"limit=1&updatedSince={since}")):
                first = Call(path, mode + "first")
                response = await recorder.get(client, first, f"{ctx.url(path)}?{query}", headers)
                following = Call(path, mode + "next")
                await recorder.get(client, following, _next(response), headers)
                calls += [first, following]
            for query in FILTERS.get(path, ()):
                filtered = Call(path, f"filtered by {query}")
                await recorder.get(client, filtered, f"{ctx.url(path)}?limit=1&{query}", headers)
                calls.append(filtered)
        for path, params in UNPAGED.items():
            once = Call(path, "once")
            url = str(httpx.URL(ctx.url(path), params=params))
            await recorder.get(client, once, url, ctx.world.owner.headers)
            calls.append(once)
    return calls
