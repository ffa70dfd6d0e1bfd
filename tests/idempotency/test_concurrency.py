"""20 concurrent POSTs with one key over a real socket create one record, and all 20 get its
answer: the test first holds the key itself, so that all 20 requests are in flight before the
first may go (on PostgreSQL, provably: all 20 wait for the key's lock). A holder that dies
frees the key."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import database
from plumbline.idempotency import repository
from plumbline.models import Issue
from tests.factories import World, create_api_key, key_headers
from tests.idempotency.helpers import REPLAYED, create_issue, keyed, new_key
from tests.issue.helpers import count_issues, issues_url
from tests.live import LiveServer

N = 20
WAIT = 120  # seconds: a safety bound on the waits, never a timed assertion


async def waiting_for(caller: str, key: str, n: int) -> None:
    """PostgreSQL: returns once ``n`` transactions wait for the key's advisory lock. SQLite:
    at once (its waiters, at BEGIN IMMEDIATE, cannot be seen from outside)."""
    if database.engine.dialect.name != "postgresql":
        return
    waiting = text(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        " AND classid = :classid AND objid = :objid AND objsubid = 2"
    )
    # pg_locks shows the second key as an oid (unsigned)
    params = {"classid": repository.LOCK_CLASS, "objid": repository.lock_id(caller, key) % 2**32}
    async with asyncio.timeout(WAIT), database.engine.connect() as watcher:
        while (await watcher.execute(waiting, params)).scalar_one() < n:
            await asyncio.sleep(0.05)


@asynccontextmanager
async def holding(caller: str, key: str) -> AsyncIterator[AsyncSession]:
    """A transaction holding the key as its first request would: PostgreSQL's advisory lock,
    SQLite's write lock (taken at BEGIN). Rolled back at the end of the block."""
    async with database.sessionmaker() as db:
        await repository.lock(db, caller, key)
        await db.execute(text("SELECT 1"))  # SQLite: BEGIN IMMEDIATE
        yield db


async def test_twenty_concurrent_creates_with_one_key_make_one_issue(world: World) -> None:
    raw, api_key = await create_api_key(world.project, ["issues:write"])
    key, title = new_key(), f"Concurrent {new_key()}"
    headers = keyed(key_headers(raw), key)
    with LiveServer(env={"PLUMBLINE_DB_POOL_SIZE": str(N + 5)}) as server:
        async with httpx.AsyncClient(
            base_url=server.url,
            timeout=WAIT,
            limits=httpx.Limits(max_connections=N),
        ) as http:

            async def create() -> httpx.Response:
                url = issues_url(world.project.id)
                return await http.post(url, json={"title": title}, headers=headers)

            caller = f"key:{api_key.id}"
            async with holding(caller, key):
                requests = [asyncio.create_task(create()) for _ in range(N)]
                await waiting_for(caller, key, N)
            answers = await asyncio.gather(*requests)

    assert [a.status_code for a in answers] == [200] * N, answers[0].text
    assert len({a.content for a in answers}) == 1
    assert sorted(REPLAYED in a.headers for a in answers) == [False] + [True] * (N - 1)
    async with database.sessionmaker() as db:
        query = select(func.count()).where(Issue.project_id == world.project.id)
        assert (await db.execute(query)).scalar_one() == 1


async def test_a_request_that_dies_holding_the_key_does_not_block_it(
    client: httpx.AsyncClient, world: World
) -> None:
    """The key is held by the transaction of its first request, which ends with its
    connection: a process that crashes mid-request leaves nothing behind."""
    key = new_key()
    caller = f"user:{world.member.id}"
    async with holding(caller, key) as crashed:
        waiting = asyncio.create_task(
            create_issue(client, world.project.id, world.member.headers, key)
        )
        await waiting_for(caller, key, 1)
        await crashed.invalidate()  # its connection closed without a commit or a rollback
    answer = await waiting
    assert answer.status_code == 200 and REPLAYED not in answer.headers
    again = await create_issue(client, world.project.id, world.member.headers, key)
    assert again.headers[REPLAYED] == "true"
    assert await count_issues(world.project.id) == 1
