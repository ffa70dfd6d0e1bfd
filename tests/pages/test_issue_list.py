"""The issues list and board through HTTP: each filter, each sort paged across pages, the
columns, the board and its moves, the CSV link, saved views, markup shown as text, and a
fixed number of statements whatever the rows."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from plumbline.issue.orders import PRIORITY_RANK
from plumbline.kit import clock
from tests.factories import QueryCounter, World, external, make_world, seed_issues
from tests.issue.helpers import create_issue, issues_url
from tests.pages.issue_pages import card_ids, form, issues, row_ids, walk


async def test_each_filter_narrows_the_list(client: httpx.AsyncClient, world: World) -> None:
    rows = await seed_issues(world, 20)
    await seed_issues(world, 1, start=2000, title="Leaking <b>valve</b> in plant room")
    by_id = {r["id"]: r for r in rows}
    headers = world.member.headers
    today = clock.today()

    async def shown(**params: Any) -> set[str]:
        return set(await walk(client, world, headers, limit=7, **params)) - {None}

    def where(test: Any) -> set[str]:
        return {i for i, r in by_id.items() if test(r)}

    assert await shown(status="RESOLVED") == where(lambda r: r["status"] == "RESOLVED")
    assert await shown(status="OPEN,IN_PROGRESS", priority="URGENT") == where(
        lambda r: r["status"] != "RESOLVED" and r["priority"] == "URGENT"
    )
    assert await shown(issueKind="WORK_ORDER") == set()
    assert await shown(assigneeId="me") == where(lambda r: r["assignee_id"] == world.member.id)
    assert await shown(assigneeId=world.member.id) == await shown(assigneeId="me")
    nobody = await shown(assigneeId="none")
    assert nobody == where(lambda r: r["assignee_id"] is None) | (nobody - set(by_id))
    overdue = where(
        lambda r: (
            r["due_date"] is not None
            and r["due_date"] < today
            and r["status"] in ("OPEN", "IN_PROGRESS")
        )
    )
    assert overdue and await shown(overdue="true") == overdue
    found = await client.get(issues(world), params={"q": "valve"}, headers=headers)
    assert len(row_ids(found.text)) == 1
    # Markup in a title is text.
    assert "Leaking &lt;b&gt;valve&lt;/b&gt;" in found.text and "<b>valve</b>" not in found.text
    bad = await client.get(issues(world), params={"status": "DONE"}, headers=headers)
    assert bad.status_code == 400


@pytest.mark.parametrize(
    "sort", ["due", "-due", "priority", "-priority", "updated", "-updated", "number", "-number"]
)
async def test_each_sort_pages_every_issue_once(
    client: httpx.AsyncClient, world: World, sort: str
) -> None:
    rows = await seed_issues(world, 17)
    seen = await walk(client, world, world.manager.headers, sort=sort, limit=5)
    assert sorted(seen) == sorted(r["id"] for r in rows)  # none missing, none twice
    by_id = {r["id"]: r for r in rows}
    name = sort.lstrip("-")
    column = {"due": "due_date", "priority": "priority", "updated": "updated_at"}
    keys = [by_id[i][column.get(name, "number")] for i in seen]
    if name == "priority":
        keys = [PRIORITY_RANK[k] for k in keys]
    dated = [k for k in keys if k is not None]
    assert dated == sorted(dated, reverse=sort.startswith("-"))
    assert keys[len(dated) :] == [None] * (len(keys) - len(dated))  # undated last


async def test_the_columns_and_the_red_overdue_date(
    client: httpx.AsyncClient, world: World
) -> None:
    late = await create_issue(
        client,
        world.project.id,
        world.member.headers,
        title="Past due",
        dueDate="2020-01-02",
        assigneeId=world.member.id,
    )
    await create_issue(
        client,
        world.project.id,
        world.member.headers,
        title="Done late",
        dueDate="2020-01-02",
        status="CLOSED",
    )
    page = (await client.get(issues(world), headers=world.manager.headers)).text
    for label in ("Status", "Priority", "Assignee", "Kind", "Due"):
        assert f'<th scope="col">{label}</th>' in page
    row = page.split(f'data-id="{late["id"]}"', 1)[1].split("</tr>", 1)[0]
    assert world.member.user.name in row and 'class="due late"' in row and "overdue" in row
    done = page.split("Done late", 1)[1].split("</tr>", 1)[0]
    assert "due late" not in done and 'class="due"' in done
    # The fragment htmx asks for: the results alone.
    fragment = await client.get(
        issues(world),
        params={"sort": "-due"},
        headers={**world.manager.headers, "HX-Request": "true", "HX-Target": "results"},
    )
    assert fragment.text.lstrip().startswith('<div id="results"') and "<html" not in fragment.text


async def test_the_csv_link_is_the_views_export(client: httpx.AsyncClient, world: World) -> None:
    await create_issue(
        client, world.project.id, world.member.headers, title="Exported", priority="HIGH"
    )
    page = await client.get(
        issues(world), params={"priority": "HIGH", "sort": "due"}, headers=world.member.headers
    )
    href = f"/api/v1/projects/{world.project.id}/issues/export.csv?priority=HIGH&amp;sort=due"
    assert f'href="{href}"' in page.text
    csv = await client.get(href.replace("&amp;", "&"), headers=world.member.headers)
    assert csv.status_code == 200 and "Exported" in csv.text


async def test_the_board_shows_a_column_per_status(client: httpx.AsyncClient, world: World) -> None:
    started = await create_issue(
        client, world.project.id, world.member.headers, title="Started", status="IN_PROGRESS"
    )
    page = await client.get(f"{issues(world)}/board", headers=world.member.headers)
    assert page.status_code == 200
    assert card_ids(page.text, "IN_PROGRESS") == [started["id"]]
    assert card_ids(page.text, "OPEN") == card_ids(page.text, "CLOSED") == []
    assert 'draggable="true"' in page.text and "data-move-select" in page.text
    assert re.search(r'<script type="module" src="/static/js/board\.[^"]+"', page.text)


async def test_a_board_move_follows_the_api_and_a_refused_one_says_why(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers, title="Move me")
    move = f"{issues(world)}/board/move"
    asked = {**world.member.page_headers, "Accept": "application/json"}
    moved = await client.post(
        move, data=form(issueId=issue["id"], status="RESOLVED"), headers=asked
    )
    assert moved.status_code == 200 and moved.json() == {"id": issue["id"], "status": "RESOLVED"}
    read = await client.get(f"{issues_url(world.project.id)}/{issue['id']}", headers=asked)
    assert read.json()["status"] == "RESOLVED" and read.json()["resolvedAt"]
    # Without script: the select's form, then the board again with the outcome.
    plain = await client.post(
        move, data=form(issueId=issue["id"], status="OPEN"), headers=world.member.page_headers
    )
    assert plain.status_code == 303 and plain.headers["location"].endswith("/issues/board?")
    bad = await client.post(move, data=form(issueId=issue["id"], status="DONE"), headers=asked)
    assert bad.status_code == 400 and bad.json()["error"]
    # A contractor moves only what they see: another's issue is not found, nothing changes.
    contractor = await external(world, "CONTRACTOR")
    theirs = {**contractor.page_headers, "Accept": "application/json"}
    refused = await client.post(
        move, data=form(issueId=issue["id"], status="CLOSED"), headers=theirs
    )
    assert refused.status_code == 404 and refused.json()["error"] == "Issue not found"
    client_ = await external(world, "CLIENT")
    board = await client.get(f"{issues(world)}/board", headers=client_.headers)
    assert board.status_code in (200, 403) and "data-move-select" not in board.text
    no = await client.post(
        move,
        data=form(issueId=issue["id"], status="CLOSED"),
        headers={**client_.page_headers, "Accept": "application/json"},
    )
    assert no.status_code in (403, 404)
    after = await client.get(
        f"{issues_url(world.project.id)}/{issue['id']}", headers=world.member.headers
    )
    assert after.json()["status"] == "OPEN"


async def test_saved_views_save_share_and_delete(client: httpx.AsyncClient, world: World) -> None:
    views = f"/app/projects/{world.project.id}/views?page=issues"
    query = "assigneeId=me&overdue=true&sort=-priority"
    saved = await client.post(
        views, data=form(name="My late", query=query, shared="1"), headers=world.member.page_headers
    )
    assert saved.status_code == 303 and saved.headers["location"].endswith(f"/issues?{query}")
    other = (await client.get(issues(world), headers=world.manager.headers)).text
    assert "My late" in other and "Delete the view My late" not in other  # shared, not theirs
    mine = (await client.get(issues(world), headers=world.member.headers)).text
    assert "Delete the view My late" in mine
    action = mine.split("Delete the view My late", 1)[0].rsplit('action="', 1)[1].split('"', 1)[0]
    assert action.startswith(f"/app/projects/{world.project.id}/views/")
    gone = await client.post(
        action.replace("&amp;", "&"), data=form(), headers=world.member.page_headers
    )
    assert gone.status_code == 303
    assert "My late" not in (await client.get(issues(world), headers=world.member.headers)).text


async def test_statements_are_fixed_whatever_the_rows(client: httpx.AsyncClient) -> None:
    counts = []
    for rows in (1, 40):
        world = await make_world()
        await seed_issues(world, rows)
        for path in (issues(world), f"{issues(world)}/board"):
            with QueryCounter() as queries:
                page = await client.get(
                    path, params={"sort": "-priority"}, headers=world.member.headers
                )
            assert page.status_code == 200
            counts.append((path.rsplit("/", 1)[1], queries.count))
    assert counts[:2] == counts[2:], counts
