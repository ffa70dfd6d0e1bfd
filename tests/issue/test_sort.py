"""GET /issues?sort=...: each order paged by its own keyset cursor (no row missing or twice,
NULL due dates last), the assignee (me, none) and overdue filters."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from plumbline.issue.orders import PRIORITY_RANK
from plumbline.kit import clock
from tests.factories import World, seed_issues
from tests.issue.helpers import issues_url


async def _seed(world: World, count: int = 23) -> list[dict[str, Any]]:
    return await seed_issues(world, count)


def _next(response: httpx.Response) -> str | None:
    found = re.search(r"<([^>]+)>; rel=\"next\"", response.headers.get("link", ""))
    return found.group(1) if found else None


async def _walk(client: httpx.AsyncClient, world: World, **params: Any) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    response = await client.get(
        issues_url(world.project.id),
        params={"limit": 4, **params},
        headers=world.manager.headers,
    )
    while True:
        assert response.status_code == 200, response.text
        seen.extend(response.json())
        url = _next(response)
        if url is None:
            return seen
        response = await client.get(url, headers=world.manager.headers)


def _key(name: str, issue: dict[str, Any]) -> Any:
    return {
        "due": issue["dueDate"],
        "priority": PRIORITY_RANK[issue["priority"]],
        "updated": issue["updatedAt"],
        "number": issue["number"],
    }[name]


@pytest.mark.parametrize(
    "sort",
    ["due", "-due", "priority", "-priority", "updated", "-updated", "number", "-number"],
)
async def test_each_order_pages_every_row_once(
    client: httpx.AsyncClient, world: World, sort: str
) -> None:
    rows = await _seed(world)
    seen = await _walk(client, world, sort=sort)
    ids = [issue["id"] for issue in seen]
    assert len(ids) == len(set(ids)) == len(rows)
    name, descending = sort.lstrip("-"), sort.startswith("-")
    keyed = [(_key(name, i), i["id"]) for i in seen if _key(name, i) is not None]
    assert keyed == sorted(keyed, reverse=descending)
    if name == "due":  # undated last, whichever the direction
        dated = [i["dueDate"] is not None for i in seen]
        assert dated == sorted(dated, reverse=True)
        assert dated.count(False) == 5


async def test_a_cursor_pages_only_its_own_order(client: httpx.AsyncClient, world: World) -> None:
    await _seed(world, 6)
    url = issues_url(world.project.id)
    first = await client.get(url, params={"limit": 2, "sort": "due"}, headers=world.manager.headers)
    cursor = re.search(r"cursor=([^&>]+)", first.headers["link"])
    assert cursor is not None
    for params in ({"sort": "-due"}, {}, {"sort": "due", "updatedSince": "2020-01-01T00:00:00Z"}):
        other = await client.get(
            url, params={"cursor": cursor.group(1), **params}, headers=world.manager.headers
        )
        assert other.status_code == 400, params
    forged = await client.get(
        url, params={"cursor": "o~abc.def", "sort": "due"}, headers=world.manager.headers
    )
    assert forged.status_code == 400
    unknown = await client.get(url, params={"sort": "title"}, headers=world.manager.headers)
    assert unknown.status_code == 400
    assert unknown.json()["details"][0]["field"] == "sort"


async def test_assignee_me_none_and_overdue(client: httpx.AsyncClient, world: World) -> None:
    rows = await _seed(world)
    url = issues_url(world.project.id)

    async def numbers(headers: dict[str, str], **params: Any) -> set[int]:
        response = await client.get(url, params=params, headers=headers)
        assert response.status_code == 200, response.text
        return {i["number"] for i in response.json()}

    mine = {r["number"] for r in rows if r["assignee_id"] == world.member.id}
    nobody = {r["number"] for r in rows if r["assignee_id"] is None}
    today = clock.today()
    late = {
        r["number"]
        for r in rows
        if r["due_date"] is not None
        and r["due_date"] < today
        and r["status"] in ("OPEN", "IN_PROGRESS")
    }
    assert late and mine and nobody
    assert await numbers(world.member.headers, assigneeId="me") == mine
    assert await numbers(world.manager.headers, assigneeId="me") == set()
    assert await numbers(world.manager.headers, assigneeId="none") == nobody
    assert await numbers(world.manager.headers, overdue="true") == late
    both = await numbers(world.member.headers, overdue="true", assigneeId="me")
    assert both == late & mine
