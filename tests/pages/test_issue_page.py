"""The issue page through HTTP: every part rendered, each field edited in place (to htmx and
without script), bad values kept with their error, status changes, comments (markup as text,
one per submission), photos through the JSON upload routes, a contractor's limits, refusals
(another workspace, a deleted issue, a stale form) and its statements (fixed)."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from plumbline.db import database
from plumbline.models import IssueComment
from tests.factories import PAGE_CSRF, QueryCounter, World, external, make_world, om_world
from tests.issue.helpers import create_file, create_issue, issues_url

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
HTMX = {"HX-Request": "true", "HX-Target": "record"}


def page_url(world: World, issue_id: str) -> str:
    return f"/app/projects/{world.project.id}/issues/{issue_id}"


def form(**fields: str) -> dict[str, str]:
    return {"csrf": PAGE_CSRF, **fields}


async def read(client: httpx.AsyncClient, world: World, issue_id: str) -> dict[str, Any]:
    answer = await client.get(
        f"{issues_url(world.project.id)}/{issue_id}", headers=world.manager.headers
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def comments_of(issue_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(IssueComment.issue_id == issue_id)
        return int((await db.execute(query)).scalar_one())


async def add_photo(client: httpx.AsyncClient, world: World, issue_id: str) -> httpx.Response:
    """The browser's sequence (upload.js): presign, PUT to the storage, complete."""
    url = f"{issues_url(world.project.id)}/{issue_id}/reference-photos"
    headers = world.member.headers
    body = {"fileName": "crack.png", "contentType": "image/png", "sizeBytes": len(PNG)}
    presign = await client.post(f"{url}/presign", json=body, headers=headers)
    assert presign.status_code == 200, presign.text
    target = presign.json()
    put = await client.request(
        target["method"], target["uploadUrl"], content=PNG, headers=target["headers"]
    )
    assert put.status_code < 300, put.text
    done = {"uploadId": target["uploadId"], "sha256": hashlib.sha256(PNG).hexdigest()}
    return await client.post(f"{url}/complete", json=done, headers=headers)


async def test_the_page_shows_every_part(client: httpx.AsyncClient, world: World) -> None:
    file_id, version_id = await create_file(world)
    issue = await create_issue(
        client,
        world.project.id,
        world.member.headers,
        title="Crack in <b>slab</b> 4",
        description="Hairline crack\nnear column C4",
        assigneeId=world.member.id,
        fileVersionId=version_id,
        pageNumber=2,
        pin={"x": 0.25, "y": 0.5},
        location="Level 3",
    )
    url = page_url(world, issue["id"])
    comment = await client.post(
        url + "/comments", data=form(body="Checked it"), headers=world.member.page_headers
    )
    assert comment.status_code == 303
    assert (await add_photo(client, world, issue["id"])).status_code == 200
    answer = await client.get(url, headers=world.member.headers)
    assert answer.status_code == 200
    html = answer.text
    assert "Crack in &lt;b&gt;slab&lt;/b&gt; 4" in html and "<b>slab</b>" not in html
    assert "Hairline crack\nnear column C4" in html
    assert "Mel Member" in html and "Level 3" in html
    assert f"/api/v1/files/{file_id}/content?version={version_id}" in html
    assert "sheet 2" in html and "pinned at 25.0%, 50.0%" in html
    assert "Checked it" in html
    assert '<img src="' in html and 'alt="crack.png"' in html
    assert "Mel Member created this issue" in html and "Mel Member commented" in html
    assert 'data-presign="/api/v1/projects/' in html and 'data-max-bytes="' in html
    assert "Mark resolved" in html and 'value="OPEN"' not in html  # the other statuses only
    assert 'id="f-assigneeId"' in html and "Max Manager" in html  # the people to give it to
    assert "Delete this issue" in html  # its creator, a MEMBER


async def test_a_work_order_shows_its_cost_lines(client: httpx.AsyncClient) -> None:
    world = await om_world()
    order = await create_issue(
        client, world.project.id, world.manager.headers, title="Pump", issueKind="WORK_ORDER"
    )
    line = await client.post(
        f"/api/v1/projects/{world.project.id}/om/work-orders/{order['id']}/costs/other",
        json={"category": "TRAVEL", "description": "Van to site", "amount": "42.50"},
        headers=world.manager.headers,
    )
    assert line.status_code == 200, line.text
    html = (await client.get(page_url(world, order["id"]), headers=world.manager.headers)).text
    assert "Van to site" in html and "$42.50" in html and "Total" in html
    assert "Max Manager changed the total cost from $0.00 to $42.50" in html
    assert "Work order type" in html and "Corrective" in html


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("title", "Crack in slab 5", "Crack in slab 5"),
        ("description", "Wider now", "Wider now"),
        ("priority", "URGENT", "URGENT"),
        ("dueDate", "2026-12-24", "2026-12-24"),
        ("issueKind", "WORK_ORDER", "WORK_ORDER"),
        ("location", "Level 4, grid B", "Level 4, grid B"),
        ("status", "IN_PROGRESS", "IN_PROGRESS"),
    ],
)
async def test_each_field_is_changed_in_place(
    client: httpx.AsyncClient, world: World, name: str, value: str, expected: str
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers, dueDate="2026-12-01")
    url = page_url(world, issue["id"])
    answer = await client.post(
        url + "/fields", data=form(field=name, **{name: value}), headers=world.member.page_headers
    )
    assert answer.status_code == 303 and answer.headers["location"] == f"{url}#field-{name}"
    assert (await read(client, world, issue["id"]))[name] == expected


async def test_to_htmx_the_record_comes_back_saved_and_assignees_are_notified(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.manager.headers)
    answer = await client.post(
        page_url(world, issue["id"]) + "/fields",
        data=form(field="assigneeId", assigneeId=world.member.id),
        headers={**world.manager.page_headers, **HTMX},
    )
    assert answer.status_code == 200
    assert answer.text.lstrip().startswith('<article id="record"')  # the block, no layout
    assert "Saved" in answer.text and "<html" not in answer.text
    assert (await read(client, world, issue["id"]))["assigneeId"] == world.member.id
    bell = await client.get("/api/v1/me/notifications", headers=world.member.headers)
    assert any(n["kind"] == "ISSUE_ASSIGNED" for n in bell.json())
    cleared = await client.post(
        page_url(world, issue["id"]) + "/fields",
        data=form(field="assigneeId", assigneeId=""),
        headers=world.manager.page_headers,
    )
    assert cleared.status_code == 303
    assert (await read(client, world, issue["id"]))["assigneeId"] is None


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("title", "", "Enter a title"),
        ("dueDate", "24/12/2026", "date"),
        ("priority", "SOMETIME", "Input should be"),
        ("assigneeId", "nobody-here", "The assignee must be someone"),
        ("issueKind", "OCCUPANT", "occupant portal"),
    ],
)
async def test_a_bad_value_is_kept_with_its_error(
    client: httpx.AsyncClient, world: World, name: str, value: str, message: str
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    before = await read(client, world, issue["id"])
    for headers in (world.member.page_headers, {**world.member.page_headers, **HTMX}):
        answer = await client.post(
            page_url(world, issue["id"]) + "/fields",
            data=form(field=name, **{name: value}),
            headers=headers,
        )
        assert answer.status_code == 400
        assert f'id="f-{name}-error"' in answer.text and message in answer.text
        assert f'id="f-{name}"' in answer.text and 'aria-invalid="true"' in answer.text
        if value and name not in ("priority", "issueKind", "assigneeId"):  # typed text, kept
            assert f'value="{value}"' in answer.text
    assert (await read(client, world, issue["id"]))[name] == before[name]


async def test_status_changes_follow_the_rules(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = page_url(world, issue["id"])
    resolved = await client.post(
        url + "/fields",
        data=form(field="status", status="RESOLVED"),
        headers=world.member.page_headers,
    )
    assert resolved.status_code == 303
    after = await read(client, world, issue["id"])
    assert after["status"] == "RESOLVED" and after["resolvedAt"] is not None
    html = (await client.get(url, headers=world.member.headers)).text
    assert "Reopen" in html and 'value="RESOLVED"' not in html
    assert "Mel Member changed the status from Open to Resolved" in html
    refused = await client.post(
        url + "/fields", data=form(field="status", status="DONE"), headers=world.member.page_headers
    )
    assert refused.status_code == 400 and 'id="f-status-error"' in refused.text
    assert (await read(client, world, issue["id"]))["status"] == "RESOLVED"
    unknown = await client.post(
        url + "/fields",
        data=form(field="createdBy", createdBy="x"),
        headers=world.member.page_headers,
    )
    assert unknown.status_code == 400


async def test_a_comment_with_markup_is_shown_as_text_and_kept_when_empty(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = page_url(world, issue["id"])
    script = "<script>alert('x')</script> see <b>here</b>"
    answer = await client.post(
        url + "/comments",
        data=form(body=script, submission="c-1"),
        headers={**world.manager.page_headers, "HX-Request": "true", "HX-Target": "comments"},
    )
    assert answer.status_code == 200
    assert answer.text.lstrip().startswith('<section class="panel" id="comments"')
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in answer.text
    assert "<script>alert" not in answer.text and "<b>here</b>" not in answer.text
    assert 'name="submission" value="c-1"' not in answer.text  # a new form, a new key
    empty = await client.post(
        url + "/comments", data=form(body="   "), headers=world.manager.page_headers
    )
    assert empty.status_code == 400 and "Write a comment" in empty.text
    listed = await client.get(
        f"{issues_url(world.project.id)}/{issue['id']}/comments", headers=world.member.headers
    )
    assert [c["body"] for c in listed.json()] == [script]


async def test_a_double_submitted_comment_is_one_comment(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = page_url(world, issue["id"]) + "/comments"
    sent = form(body="On my way", submission="twice-" + issue["id"])
    first = await client.post(url, data=sent, headers=world.member.page_headers)
    second = await client.post(url, data=sent, headers=world.member.page_headers)
    assert first.status_code == second.status_code == 303
    assert await comments_of(issue["id"]) == 1


async def test_a_photo_uploaded_through_the_json_routes_shows_as_a_thumbnail(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    photo = await add_photo(client, world, issue["id"])
    assert photo.status_code == 200, photo.text
    fragment = await client.get(
        page_url(world, issue["id"]),
        headers={**world.member.headers, "HX-Request": "true", "HX-Target": "photos"},
    )
    assert fragment.text.lstrip().startswith('<section class="panel" id="photos"')
    [thumb] = (await read(client, world, issue["id"]))["referencePhotos"]
    assert thumb["url"].split("?")[0] in fragment.text
    refused = await client.post(
        f"{issues_url(world.project.id)}/{issue['id']}/reference-photos/presign",
        json={"fileName": "notes.pdf", "contentType": "application/pdf", "sizeBytes": 10},
        headers=world.member.headers,
    )
    assert refused.status_code == 415  # the server says it again after the page's check


async def test_a_contractor_sees_and_changes_only_what_the_api_lets_them(
    client: httpx.AsyncClient, world: World
) -> None:
    contractor = await external(world, "CONTRACTOR", name="Carl Contractor")
    theirs = await create_issue(
        client, world.project.id, world.manager.headers, assigneeId=contractor.id
    )
    other = await create_issue(client, world.project.id, world.manager.headers)
    url = page_url(world, theirs["id"])
    html = (await client.get(url, headers=contractor.headers)).text
    assert 'id="f-priority"' in html  # they work on it
    assert 'id="f-assigneeId"' not in html and "Delete this issue" not in html
    reassign = await client.post(
        url + "/fields",
        data=form(field="assigneeId", assigneeId=world.member.id),
        headers=contractor.page_headers,
    )
    assert reassign.status_code == 400 and 'id="f-assigneeId-error"' in reassign.text
    assert "cannot change who an issue is assigned to" in reassign.text
    delete = await client.post(url + "/delete", data=form(), headers=contractor.page_headers)
    assert delete.status_code == 403 and "<h1" in delete.text
    assert (await read(client, world, theirs["id"]))["assigneeId"] == contractor.id
    hidden = await client.get(page_url(world, other["id"]), headers=contractor.headers)
    assert hidden.status_code == 404


async def test_a_client_may_comment_but_not_edit(client: httpx.AsyncClient, world: World) -> None:
    from tests.factories import set_client_visibility

    await set_client_visibility(world.project, showIssues=True)
    customer = await external(world, "CLIENT", name="Cleo Client")
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = page_url(world, issue["id"])
    html = (await client.get(url, headers=customer.headers)).text
    assert (
        'class="change"' not in html
        and "Mark resolved" not in html
        and 'id="f-comment-body"' in html
    )
    edit = await client.post(
        url + "/fields", data=form(field="title", title="Mine"), headers=customer.page_headers
    )
    assert edit.status_code == 403
    said = await client.post(
        url + "/comments", data=form(body="Thanks"), headers=customer.page_headers
    )
    assert said.status_code == 303 and await comments_of(issue["id"]) == 1


async def test_a_manager_deletes_and_the_page_is_gone(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = page_url(world, issue["id"])
    gone = await client.post(url + "/delete", data=form(), headers=world.manager.page_headers)
    assert gone.status_code == 303
    assert gone.headers["location"] == f"/app/projects/{world.project.id}/issues"
    answer = await client.get(url, headers=world.manager.headers)
    assert answer.status_code == 404 and "<h1" in answer.text
    again = await client.post(
        url + "/fields", data=form(field="title", title="Back"), headers=world.manager.page_headers
    )
    assert again.status_code == 404


async def test_another_workspace_gets_the_404_page(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    stranger = await make_world()
    answer = await client.get(page_url(world, issue["id"]), headers=stranger.owner.headers)
    assert answer.status_code == 404 and "Leak at level 3" not in answer.text
    edit = await client.post(
        page_url(world, issue["id"]) + "/fields",
        data=form(field="title", title="Mine"),
        headers=stranger.owner.page_headers,
    )
    assert edit.status_code == 404


async def test_a_stale_form_is_refused_and_nothing_written(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = page_url(world, issue["id"])
    stale = {"csrf": "an-old-token", "field": "title", "title": "Changed"}
    answer = await client.post(url + "/fields", data=stale, headers=world.member.page_headers)
    assert answer.status_code == 403 and "expired" in answer.text
    comment = {"csrf": "an-old-token", "body": "Hello"}
    refused = await client.post(url + "/comments", data=comment, headers=world.member.page_headers)
    assert refused.status_code == 403
    assert (await read(client, world, issue["id"]))["title"] == "Leak at level 3"
    assert await comments_of(issue["id"]) == 0


async def test_the_page_costs_the_same_statements_whatever_its_history(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = page_url(world, issue["id"])
    with QueryCounter() as fresh:
        assert (await client.get(url, headers=world.member.headers)).status_code == 200
    for n, priority in enumerate(("HIGH", "LOW", "URGENT", "MEDIUM")):
        await client.post(
            url + "/fields",
            data=form(field="priority", priority=priority),
            headers=world.member.page_headers,
        )
        await client.post(
            url + "/fields",
            data=form(field="assigneeId", assigneeId=(world.manager.id, world.member.id)[n % 2]),
            headers=world.member.page_headers,
        )
        await client.post(
            url + "/comments", data=form(body=f"n{n}"), headers=world.member.page_headers
        )
    with QueryCounter() as busy:
        html = (await client.get(url, headers=world.member.headers)).text
    assert "Mel Member changed the priority from High to Low" in html
    assert "Mel Member assigned it to Max Manager" in html
    assert busy.count == fresh.count + 1  # the names of the people assigned: one statement
