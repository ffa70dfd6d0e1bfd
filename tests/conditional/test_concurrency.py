"""Conditional writers of one resource racing on a live server (real sockets, the worker's
database): with the same If-Match, exactly one wins and the others are refused."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx

from tests.factories import World, audit_entries
from tests.live import LiveServer

ORIGIN = "http://127.0.0.1:8000"
WRITERS = 20
WAIT = 120  # seconds: a safety bound on each request under a loaded machine, never asserted


async def test_concurrent_conditional_writes_exactly_one_wins(world: World) -> None:
    with LiveServer() as server:
        async with httpx.AsyncClient(
            base_url=server.url, headers={"Origin": ORIGIN, **world.member.headers}, timeout=WAIT
        ) as client:
            created = await client.post(
                f"/api/v1/projects/{world.project.id}/issues", json={"title": "Raced"}
            )
            url = f"/api/v1/projects/{world.project.id}/issues/{created.json()['id']}"
            tag = (await client.get(url)).headers["etag"]
            answers = await asyncio.gather(
                *(
                    client.patch(url, json={"title": f"Writer {i}"}, headers={"If-Match": tag})
                    for i in range(WRITERS)
                )
            )
            assert Counter(a.status_code for a in answers) == {200: 1, 412: WRITERS - 1}
            (won,) = [a for a in answers if a.status_code == 200]
            read = await client.get(url)
            assert read.json()["title"] == won.json()["title"]
            assert read.headers["etag"] == won.headers["etag"]
            updates = [
                e for e in await audit_entries(read.json()["id"]) if e.action == "issue.updated"
            ]
            assert len(updates) == 1

            # Deleting races the same way: one delete, the others find it gone or changed.
            current = read.headers["etag"]
            deletes = await asyncio.gather(
                *(client.delete(url, headers={"If-Match": current}) for _ in range(WRITERS // 2))
            )
            statuses = Counter(a.status_code for a in deletes)
            assert statuses[200] == 1 and set(statuses) <= {200, 404, 412}
            assert (await client.get(url)).status_code == 404
