"""updatedSince paging under concurrent writes, ties, tampered cursors (issue 27, item 3).

The issue list stands for every list: they share ``kit.pagination`` (``test_incremental_sync``
walks them all)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.pagination import NEXT_SINCE
from plumbline.models import Issue
from tests.factories import QueryCounter, World, make_world
from tests.issue.helpers import create_issue

T = datetime(2031, 3, 1, 9, tzinfo=UTC)
SETTLE = 5


def issues(world: World) -> str:
    return f"/api/v1/projects/{world.project.id}/issues"


async def sync(
    client: httpx.AsyncClient, world: World, since: str, limit: int = 1
) -> tuple[list[str], str]:
    """One sync: every page from ``since``; the ids in order and where the next sync starts."""
    ids: list[str] = []
    url: str | None = issues(world)
    params: dict[str, Any] | None = {"updatedSince": since, "limit": limit}
    while True:
        assert url is not None
        response = await client.get(url, params=params, headers=world.member.headers)
        assert response.status_code == 200, response.text
        ids += [row["id"] for row in response.json()]
        link, params = response.headers.get("link"), None
        if link is None:
            return ids, response.headers[NEXT_SINCE]
        url = link[1 : link.index(">")]


@asynccontextmanager
async def stamped_writer(issue_id: str, at: datetime) -> AsyncIterator[Any]:
    """A second connection that stamps ``issue_id`` changed ``at`` and commits when the block
    ends. On PostgreSQL its transaction is open (row written, not committed) during the block;
    SQLite takes one writer at a time, so there the writer that stamped ``at`` is still waiting
    for the lock: it writes and commits at the end."""
    statement = update(Issue).where(Issue.id == issue_id).values(title="Moved", updated_at=at)
    async with database.engine.connect() as conn:
        postgres = database.engine.dialect.name == "postgresql"
        if postgres:
            await conn.execute(statement)
        yield conn
        if not postgres:
            await conn.execute(statement)
        await conn.commit()


@pytest.mark.parametrize("settle", [SETTLE, 0])
async def test_a_transaction_that_commits_late_is_not_skipped(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, settle: int
) -> None:
    """Without the settle window (0) the reader passes the late row's stamp and never sees it:
    the window is what keeps it."""
    monkeypatch.setattr(settings, "sync_settle_seconds", settle)
    clock.set_now(T - timedelta(hours=1))
    world = await make_world()
    late = await create_issue(client, world.project.id, world.member.headers, title="Late")
    clock.set_now(T)
    a = await create_issue(client, world.project.id, world.member.headers, title="A")
    async with stamped_writer(late["id"], T + timedelta(seconds=10)):
        clock.set_now(T + timedelta(seconds=11))
        e = await create_issue(client, world.project.id, world.member.headers, title="E")
        clock.set_now(T + timedelta(seconds=13))
        first, resume = await sync(client, world, clock.iso(T) or "")
    clock.set_now(T + timedelta(seconds=20))
    second, _ = await sync(client, world, resume)
    if settle:
        assert first == [a["id"]]
        assert second == [late["id"], e["id"]]
    else:
        assert first == [a["id"], e["id"]]
        assert second == []  # the late row is lost


async def test_paging_while_rows_change_returns_each_unchanged_row_once(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows edited during the walk leave it and come in the next sync with their new time."""
    monkeypatch.setattr(settings, "sync_settle_seconds", SETTLE)
    clock.set_now(T)
    world = await make_world()
    made = []
    for n in range(6):
        clock.set_now(T + timedelta(seconds=n))
        made.append((await create_issue(client, world.project.id, world.member.headers))["id"])
    clock.set_now(T + timedelta(minutes=1))
    seen: list[str] = []
    url = issues(world)
    params: dict[str, Any] | None = {"updatedSince": clock.iso(T), "limit": 2}
    link: str | None = "first"
    while link is not None:
        response = await client.get(url, params=params, headers=world.member.headers)
        seen += [row["id"] for row in response.json()]
        if len(seen) == 2:  # edit one row already returned and one still ahead
            for issue_id in (made[0], made[4]):
                edited = await client.patch(
                    f"{issues(world)}/{issue_id}",
                    json={"title": "Edited"},
                    headers=world.member.headers,
                )
                assert edited.status_code == 200
        link = response.headers.get("link")
        url, params = (link[1 : link.index(">")], None) if link else (url, params)
    assert seen == [made[0], made[1], made[2], made[3], made[5]]
    resume = response.headers[NEXT_SINCE]
    clock.set_now(T + timedelta(minutes=2))
    again, _ = await sync(client, world, resume)
    assert again == [made[0], made[4]]  # changed after the walk passed: new changes


async def test_rows_of_one_instant_page_by_id_and_the_count_of_queries_holds(
    client: httpx.AsyncClient,
) -> None:
    clock.set_now(T)
    world = await make_world()
    made = [
        (await create_issue(client, world.project.id, world.member.headers))["id"] for _ in range(5)
    ]
    clock.set_now(T + timedelta(minutes=1))
    ids, _ = await sync(client, world, clock.iso(T) or "", limit=2)
    assert ids == sorted(made)
    counts = []
    for limit in (1, 5):
        with QueryCounter() as queries:
            await sync(client, world, clock.iso(T) or "", limit=limit)
        counts.append(queries.count)
    pages = [5, 1]
    assert counts[0] / pages[0] == counts[1] / pages[1]


async def test_a_tampered_or_foreign_cursor_is_400(client: httpx.AsyncClient) -> None:
    clock.set_now(T)
    world = await make_world()
    for _ in range(3):
        await create_issue(client, world.project.id, world.member.headers)
    clock.set_now(T + timedelta(minutes=1))
    since = {"updatedSince": clock.iso(T) or "", "limit": "1"}
    page = await client.get(issues(world), params=since, headers=world.member.headers)
    cursor = httpx.URL(page.headers["link"][1:-13]).params["cursor"]
    plain = await client.get(issues(world), params={"limit": 1}, headers=world.member.headers)
    id_cursor = httpx.URL(plain.headers["link"][1:-13]).params["cursor"]
    flipped = cursor[:3] + ("A" if cursor[3] != "A" else "B") + cursor[4:]
    for params in (
        since | {"cursor": flipped},
        since | {"cursor": cursor + "x"},
        since | {"cursor": "bm90IGEgY3Vyc29y.c2lnbmF0dXJl"},
        since | {"cursor": id_cursor},  # the newest-first order's
        {"limit": "1", "cursor": cursor},  # an updatedSince cursor without its updatedSince
        {"updatedSince": "2031-02-30T00:00:00Z"},
        {"updatedSince": "1798736400"},
    ):
        response = await client.get(issues(world), params=params, headers=world.member.headers)
        assert response.status_code == 400, (params, response.text)
        body = response.json()
        assert body["code"] == "VALIDATION_FAILED" and body["error"], body
    good = await client.get(
        issues(world), params=since | {"cursor": cursor}, headers=world.member.headers
    )
    assert good.status_code == 200
