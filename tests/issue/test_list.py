"""GET /issues: order, filters, pagination, query counts; GET /issues/export.csv."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import insert

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Issue, IssueComment
from tests.factories import QueryCounter, World, create_api_key, key_headers
from tests.issue.helpers import create_issue, issues_url

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


async def _seed(world: World, count: int, start: int = 1) -> None:
    """Many rows straight into the table (the routes are proven elsewhere)."""
    now = clock.now()
    rows = [
        {
            "id": new_id(),
            "project_id": world.project.id,
            "workspace_id": world.workspace.id,
            "number": start + i,
            "title": f"Seeded {i}",
            "description": "lorem ipsum",
            "status": "OPEN",
            "priority": "MEDIUM",
            "issue_kind": "CONSTRUCTION",
            "checklist": [{"id": "a", "label": "x", "done": False}],
            "pin": {"x": 0.5, "y": 0.5},
            "created_by": world.member.id,
            "created_at": now,
            "updated_at": now,
            "status_changed_at": now,
        }
        for i in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(Issue), rows)
        await db.commit()


async def _list(
    client: httpx.AsyncClient, world: World, headers: dict[str, str] | None = None, **params: Any
) -> httpx.Response:
    response = await client.get(
        issues_url(world.project.id), params=params, headers=headers or world.member.headers
    )
    return response


async def test_newest_first(client: httpx.AsyncClient, world: World) -> None:
    made = [await create_issue(client, world.project.id, world.member.headers) for _ in range(3)]
    response = await _list(client, world)
    assert response.status_code == 200
    assert [i["number"] for i in response.json()] == [3, 2, 1]
    assert response.json()[0] == made[-1]
    assert "link" not in response.headers


async def test_filters(client: httpx.AsyncClient, world: World) -> None:
    clock.set_now(T0)
    a = await create_issue(
        client,
        world.project.id,
        world.member.headers,
        title="Broken WINDOW pane",
        priority="HIGH",
        assigneeId=world.manager.id,
    )
    b = await create_issue(
        client,
        world.project.id,
        world.member.headers,
        title="Door",
        description="the window latch 100%_done",
        status="IN_PROGRESS",
        issueKind="WORK_ORDER",
    )
    clock.set_now(T0 + timedelta(days=2))
    c = await create_issue(
        client, world.project.id, world.member.headers, title="Paint", status="CLOSED"
    )

    async def ids(**params: Any) -> list[str]:
        response = await _list(client, world, **params)
        assert response.status_code == 200, response.text
        return [i["id"] for i in response.json()]

    assert await ids(status="OPEN") == [a["id"]]
    assert await ids(status="OPEN,CLOSED") == [c["id"], a["id"]]
    assert await ids(priority="HIGH") == [a["id"]]
    assert await ids(issueKind="WORK_ORDER") == [b["id"]]
    assert await ids(assigneeId=world.manager.id) == [a["id"]]
    assert await ids(q="window") == [b["id"], a["id"]]
    assert await ids(q="100%_") == [b["id"]]
    assert await ids(q="%") == [b["id"]]
    clock.set_now(T0 + timedelta(days=2, minutes=1))  # past the sync settle window
    assert await ids(updatedSince="2026-11-22T00:00:00Z") == [c["id"]]
    assert await ids(status="OPEN", q="door") == []
    for params in (
        {"status": "DONE"},
        {"priority": "LOW,NOPE"},
        {"issueKind": "x"},
        {"updatedSince": "yesterday"},
        {"limit": 0},
        {"limit": 1001},
    ):
        response = await _list(client, world, **params)
        assert response.status_code == 400, params
        assert response.json()["code"] == "VALIDATION_FAILED"


async def test_pagination_with_link_header(client: httpx.AsyncClient, world: World) -> None:
    await _seed(world, 5)
    first = await _list(client, world, limit=2)
    assert [i["number"] for i in first.json()] == [5, 4]
    link = first.headers["link"]
    match = re.match(r'<([^>]+)>; rel="next"', link)
    assert match
    second = await client.get(match.group(1), headers=world.member.headers)
    assert [i["number"] for i in second.json()] == [3, 2]
    third_url = re.match(r"<([^>]+)>", second.headers["link"])
    assert third_url
    third = await client.get(third_url.group(1), headers=world.member.headers)
    assert [i["number"] for i in third.json()] == [1]
    assert "link" not in third.headers


async def test_fixed_number_of_queries(client: httpx.AsyncClient, world: World) -> None:
    raw, _ = await create_api_key(world.project, ["issues:read"])
    await _list(client, world, headers=key_headers(raw))  # settles the key's lastUsedAt
    await _seed(world, 1)
    with QueryCounter() as one:
        response = await _list(client, world, headers=key_headers(raw), limit=1000)
    assert len(response.json()) == 1
    await _seed(world, 499, start=2)
    with QueryCounter() as many:
        response = await _list(client, world, headers=key_headers(raw), limit=1000)
    assert len(response.json()) == 500
    assert one.count == many.count
    with QueryCounter() as by_user:
        response = await _list(client, world, limit=1000)
    assert len(response.json()) == 500
    assert by_user.count <= one.count + 1
    assert sum("FROM issues" in s for s in many.statements) == 1


async def _seed_comments(world: World, issue_id: str, count: int, key_id: str) -> None:
    """``count`` comments straight into the table, by two users and an API key in turn."""
    authors = [(world.member.id, None), (world.manager.id, None), (None, key_id)]
    now = clock.now()
    rows = [
        {
            "id": new_id(),
            "issue_id": issue_id,
            "project_id": world.project.id,
            "workspace_id": world.workspace.id,
            "body": f"Comment {i}",
            "author_id": authors[i % 3][0],
            "author_key_id": authors[i % 3][1],
            "created_at": now,
        }
        for i in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(IssueComment), rows)
        await db.commit()


async def test_fixed_number_of_queries_for_comments(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    _, key = await create_api_key(world.project, ["issues:write"])
    url = f"{issues_url(world.project.id)}/{issue['id']}/comments"
    params = {"limit": 1000}
    await _seed_comments(world, issue["id"], 1, key.id)
    with QueryCounter() as one:
        response = await client.get(url, params=params, headers=world.member.headers)
    assert response.status_code == 200 and len(response.json()) == 1
    await _seed_comments(world, issue["id"], 499, key.id)
    with QueryCounter() as many:
        response = await client.get(url, params=params, headers=world.member.headers)
    assert response.status_code == 200 and "link" not in response.headers
    rows = response.json()
    assert len(rows) == 500
    assert {r["authorName"] for r in rows} == {"Mel Member", "Max Manager", "API key"}
    assert one.count == many.count, (one.count, many.count)


def _parse(response: httpx.Response) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(response.text)))


async def test_csv_export(client: httpx.AsyncClient, world: World) -> None:
    await create_issue(
        client,
        world.project.id,
        world.member.headers,
        title="=HYPERLINK(1)",
        description='Quote " and, comma\nnew line',
        assigneeId=world.manager.id,
        dueDate="2026-12-24",
    )
    await create_issue(
        client, world.project.id, world.member.headers, title="Closed", status="CLOSED"
    )
    url = f"{issues_url(world.project.id)}/export.csv"
    response = await client.get(url, headers=world.member.headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"].startswith('attachment; filename="issues-')
    rows = _parse(response)
    assert [r["number"] for r in rows] == ["2", "1"]
    first = rows[1]
    assert first["title"] == "'=HYPERLINK(1)"
    assert first["description"] == 'Quote " and, comma\nnew line'
    assert first["assigneeName"] == "Max Manager" and first["createdByName"] == "Mel Member"
    assert first["dueDate"] == "2026-12-24" and first["status"] == "OPEN"
    filtered = _parse(
        await client.get(url, params={"status": "CLOSED"}, headers=world.member.headers)
    )
    assert [r["title"] for r in filtered] == ["Closed"]
    bad = await client.get(url, params={"status": "NOPE"}, headers=world.member.headers)
    assert bad.status_code == 400
    assert (await client.get(url)).status_code == 401
    raw, _ = await create_api_key(world.project, ["issues:write"])
    assert (await client.get(url, headers=key_headers(raw))).status_code == 403


async def test_csv_export_streams_every_batch(client: httpx.AsyncClient, world: World) -> None:
    await _seed(world, 1201)
    raw, _ = await create_api_key(world.project, ["issues:read"])
    response = await client.get(
        f"{issues_url(world.project.id)}/export.csv", headers=key_headers(raw)
    )
    rows = _parse(response)
    assert len(rows) == 1201
    assert [int(r["number"]) for r in rows] == list(range(1201, 0, -1))


async def test_csv_export_neutralises_formulas_after_line_breaks(
    client: httpx.AsyncClient, world: World
) -> None:
    sneaky = ["\n=HYPERLINK(2)", "\r+1", " \t@SUM(1)", "\r\n-2"]
    for text in sneaky:
        await create_issue(client, world.project.id, world.member.headers, description=text)
    response = await client.get(
        f"{issues_url(world.project.id)}/export.csv", headers=world.member.headers
    )
    cells = {r["description"] for r in _parse(response)}
    assert {"'" + text for text in sneaky} <= cells


async def test_a_page_holds_100_rows_unless_limit_says_otherwise(
    client: httpx.AsyncClient, world: World
) -> None:
    await _seed(world, 101)
    url = issues_url(world.project.id)
    first = await client.get(url, headers=world.member.headers)
    assert first.status_code == 200 and len(first.json()) == 100
    link = first.headers["link"]
    assert "limit=100" in link and link.endswith('rel="next"')
    rest = await client.get(link[1 : link.index(">")], headers=world.member.headers)
    assert len(rest.json()) == 1 and "link" not in rest.headers
    whole = await client.get(url, params={"limit": 1000}, headers=world.member.headers)
    assert len(whole.json()) == 101 and "link" not in whole.headers
    too_many = await client.get(url, params={"limit": 1001}, headers=world.member.headers)
    assert too_many.status_code == 400


async def test_every_list_documents_its_page_size(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/api/v1/openapi.json")).json()
    limits = [
        parameter
        for item in spec["paths"].values()
        for parameter in item.get("get", {}).get("parameters", ())
        if parameter["name"] == "limit"
    ]
    paged = [p for p in limits if "Link" in p.get("description", "")]
    assert len(paged) >= 30
    for parameter in paged:
        assert parameter["schema"]["default"] == 100 and parameter["schema"]["maximum"] == 1000
        assert "100 when left out" in parameter["description"]
