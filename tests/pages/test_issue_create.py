"""Reporting an issue and changing many at once, through HTTP: the create form (ok, a bad
field kept with its error, a double submit, who may, another workspace, markup as text, the
assignee notified) and the list's bulk bar (each action, "all that match", all or nothing)."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from plumbline.db import database
from plumbline.models import Issue
from tests.factories import World, external, make_world, seed_issues
from tests.issue.helpers import count_issues, create_issue, issues_url, notifications
from tests.pages.issue_pages import form, issues


async def _read(client: httpx.AsyncClient, world: World, issue_id: str) -> httpx.Response:
    return await client.get(
        f"{issues_url(world.project.id)}/{issue_id}", headers=world.manager.headers
    )


async def test_create_opens_the_issue_and_notifies_its_assignee(
    client: httpx.AsyncClient, world: World
) -> None:
    page = await client.get(f"{issues(world)}/new", headers=world.manager.headers)
    assert page.status_code == 200
    assert 'accept="image/*" capture="environment"' in page.text
    assert world.member.user.name in page.text  # an assignee to pick
    made = await client.post(
        f"{issues(world)}/new",
        data=form(
            title="Cracked tile <script>alert(1)</script>",
            description="Lobby, by the lift",
            issueKind="WORK_ORDER",
            priority="HIGH",
            assigneeId=world.member.id,
            dueDate="2030-05-06",
            submission="create-1",
        ),
        headers=world.manager.page_headers,
    )
    assert made.status_code == 303
    issue_id = made.headers["location"].rsplit("/", 1)[1]
    assert made.headers["location"] == f"{issues(world)}/{issue_id}"
    body = (await _read(client, world, issue_id)).json()
    assert body["title"] == "Cracked tile <script>alert(1)</script>"
    assert (body["issueKind"], body["priority"], body["assigneeId"], body["dueDate"]) == (
        "WORK_ORDER",
        "HIGH",
        world.member.id,
        "2030-05-06",
    )
    assigned = await notifications(world.project.id, "ISSUE_ASSIGNED")
    assert [n.user_id for n in assigned] == [world.member.id]
    listed = await client.get(issues(world), headers=world.manager.headers)
    assert "Cracked tile &lt;script&gt;" in listed.text and "<script>alert(1)" not in listed.text
    # upload.js asks for JSON: the issue's id and page, to upload the photos to.
    asked = await client.post(
        f"{issues(world)}/new",
        data=form(title="With photos", submission="create-2"),
        headers={**world.manager.page_headers, "Accept": "application/json"},
    )
    assert asked.status_code == 200 and asked.json()["url"].endswith(asked.json()["id"])


async def test_a_bad_field_is_kept_with_its_error(client: httpx.AsyncClient, world: World) -> None:
    url = f"{issues(world)}/new"
    empty = await client.post(
        url, data=form(title="", description="<b>kept</b>"), headers=world.member.page_headers
    )
    assert empty.status_code == 400
    assert 'id="f-title-error"' in empty.text and "Enter a title" in empty.text
    assert "&lt;b&gt;kept&lt;/b&gt;" in empty.text
    stranger = (await make_world()).member
    wrong = await client.post(
        url,
        data=form(title="Typed", dueDate="someday", assigneeId=stranger.id, priority="HIGH"),
        headers=world.member.page_headers,
    )
    assert wrong.status_code == 400 and 'id="f-dueDate-error"' in wrong.text
    assert 'value="Typed"' in wrong.text and '<option value="HIGH" selected>' in wrong.text
    elsewhere = await client.post(
        url, data=form(title="Typed", assigneeId=stranger.id), headers=world.member.page_headers
    )
    assert elsewhere.status_code == 400 and 'id="f-assigneeId-error"' in elsewhere.text
    assert await count_issues(world.project.id) == 0


async def test_a_double_submit_creates_one_issue(client: httpx.AsyncClient, world: World) -> None:
    fields = form(title="Once only", submission="twice-1")
    url = f"{issues(world)}/new"
    first = await client.post(url, data=fields, headers=world.member.page_headers)
    second = await client.post(url, data=fields, headers=world.member.page_headers)
    assert first.status_code == second.status_code == 303
    assert first.headers["location"] == second.headers["location"]
    assert await count_issues(world.project.id) == 1
    stale = await client.post(url, data={"title": "No token"}, headers=world.member.page_headers)
    assert stale.status_code == 403 and await count_issues(world.project.id) == 1


async def test_who_may_report_and_where(client: httpx.AsyncClient, world: World) -> None:
    # A contractor reports (as the API lets them) and sees only their own issues.
    await create_issue(client, world.project.id, world.member.headers, title="The team's")
    contractor = await external(world, "CONTRACTOR")
    made = await client.post(
        f"{issues(world)}/new", data=form(title="Mine"), headers=contractor.page_headers
    )
    assert made.status_code == 303
    listed = (await client.get(issues(world), headers=contractor.headers)).text
    assert "Mine" in listed and "The team's" not in listed
    # A client may not: no button, no form, a refused POST.
    client_ = await external(world, "CLIENT")
    assert (await client.get(f"{issues(world)}/new", headers=client_.headers)).status_code == 403
    refused = await client.post(
        f"{issues(world)}/new", data=form(title="No"), headers=client_.page_headers
    )
    assert refused.status_code == 403 and "<h1" in refused.text
    # Another workspace: the 404 page.
    other = await make_world()
    assert (
        await client.get(f"{issues(world)}/new", headers=other.member.headers)
    ).status_code == 404
    post = await client.post(
        f"{issues(world)}/new", data=form(title="Elsewhere"), headers=other.member.page_headers
    )
    assert post.status_code == 404
    assert await count_issues(world.project.id) == 2


async def _bulk(
    client: httpx.AsyncClient, world: World, headers: dict[str, str], **fields: Any
) -> httpx.Response:
    return await client.post(f"{issues(world)}/bulk", data=form(**fields), headers=headers)


async def _column(world: World, ids: list[str], name: str) -> list[Any]:
    async with database.sessionmaker() as db:
        rows = await db.execute(
            select(Issue.id, getattr(Issue, name)).where(Issue.id.in_(ids)).order_by(Issue.id)
        )
        return [value for _, value in rows.tuples()]


async def test_each_bulk_action(client: httpx.AsyncClient, world: World) -> None:
    rows = await seed_issues(world, 5, status="OPEN", assignee_id=None)
    ids = [r["id"] for r in rows[:3]]
    headers = world.manager.page_headers
    done = await _bulk(
        client, world, headers, ids=ids, action="status", status="CLOSED", query="q=x"
    )
    assert done.status_code == 303 and done.headers["location"].endswith("/issues?q=x")
    assert "plumbline_flash" in done.headers["set-cookie"]
    assert await _column(world, ids, "status") == ["CLOSED"] * 3
    assert all(await _column(world, ids, "closed_at"))
    await _bulk(client, world, headers, ids=ids, action="priority", priority="URGENT")
    assert await _column(world, ids, "priority") == ["URGENT"] * 3
    await _bulk(client, world, headers, ids=ids, action="assign", assigneeId=world.member.id)
    assert await _column(world, ids, "assignee_id") == [world.member.id] * 3
    assert len(await notifications(world.project.id, "ISSUE_ASSIGNED")) == 3
    await _bulk(client, world, headers, ids=ids[:1], action="assign", assigneeId="")
    assert (await _column(world, ids, "assignee_id")).count(None) == 1
    await _bulk(client, world, headers, ids=ids, action="delete")
    assert all(await _column(world, ids, "deleted_at"))
    untouched = [r["id"] for r in rows[3:]]
    assert await _column(world, untouched, "status") == ["OPEN"] * 2
    assert await _column(world, untouched, "deleted_at") == [None] * 2


async def test_all_that_match_and_all_or_nothing(client: httpx.AsyncClient, world: World) -> None:
    rows = await seed_issues(world, 6, status="OPEN", created_by=world.manager.id)
    urgent = [r["id"] for r in rows if r["priority"] == "URGENT"]
    everything = await _bulk(
        client,
        world,
        world.manager.page_headers,
        ids=rows[0]["id"],
        all="1",
        query="priority=URGENT",
        action="status",
        status="RESOLVED",
    )
    assert everything.status_code == 303
    statuses = await _column(world, [r["id"] for r in rows], "status")
    assert statuses.count("RESOLVED") == len(urgent) == 1
    # A member may delete only what they created: one such issue among the ticked refuses all.
    own = await create_issue(client, world.project.id, world.member.headers, title="Own")
    ids = [own["id"], rows[1]["id"]]
    refused = await _bulk(client, world, world.member.page_headers, ids=ids, action="delete")
    assert refused.status_code == 303 and "plumbline_flash" in refused.headers["set-cookie"]
    assert await _column(world, ids, "deleted_at") == [None, None]
    # The flash says why, on the next page.
    shown = await client.get(
        refused.headers["location"],
        headers={
            **world.member.headers,
            "Cookie": world.member.page_headers["Cookie"]
            + "; "
            + refused.headers["set-cookie"].split(";")[0],
        },
    )
    assert "Nothing was changed" in shown.text and "only the issues you created" in shown.text
    # A contractor may not reassign: refused, nothing written.
    contractor = await external(world, "CONTRACTOR")
    theirs = await create_issue(client, world.project.id, contractor.headers, title="Theirs")
    status_too = await _bulk(
        client,
        world,
        contractor.page_headers,
        ids=[theirs["id"]],
        action="assign",
        assigneeId=world.member.id,
    )
    assert status_too.status_code == 303
    assert (await _read(client, world, theirs["id"])).json()["assigneeId"] is None
    nothing = await _bulk(client, world, world.manager.page_headers, action="status", status="OPEN")
    assert nothing.status_code == 303  # nothing ticked: said in a flash
    client_ = await external(world, "CLIENT")
    forbidden = await _bulk(client, world, client_.page_headers, ids=ids, action="delete")
    assert forbidden.status_code == 403
