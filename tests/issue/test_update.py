"""PATCH and DELETE: given fields only, status stamps, kinds, assignment, soft delete, numbers."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import update

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Issue
from tests.factories import (
    World,
    audit_entries,
    create_api_key,
    create_user,
    key_headers,
    read_mails,
)
from tests.issue.helpers import create_issue, issues_url, notifications

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


async def _patch(
    client: httpx.AsyncClient,
    world: World,
    issue_id: str,
    headers: dict[str, str],
    **fields: object,
) -> httpx.Response:
    return await client.patch(
        f"{issues_url(world.project.id)}/{issue_id}", json=fields, headers=headers
    )


async def test_patch_changes_only_the_given_fields(client: httpx.AsyncClient, world: World) -> None:
    clock.set_now(T0)
    issue = await create_issue(
        client, world.project.id, world.member.headers, description="d", location="L1"
    )
    clock.set_now(T0 + timedelta(minutes=5))
    response = await _patch(client, world, issue["id"], world.member.headers, priority="HIGH")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["priority"] == "HIGH"
    unchanged = {k: v for k, v in body.items() if k not in ("priority", "updatedAt")}
    assert unchanged == {k: v for k, v in issue.items() if k not in ("priority", "updatedAt")}
    assert body["updatedAt"] == "2026-11-21T09:05:00.000Z"
    cleared = await _patch(
        client, world, issue["id"], world.member.headers, description=None, location=None
    )
    assert cleared.json()["description"] is None and cleared.json()["location"] is None
    entries = await audit_entries(issue["id"])
    assert [e.action for e in entries] == ["issue.created", "issue.updated", "issue.updated"]
    assert entries[1].changes == {"priority": ["MEDIUM", "HIGH"]}
    assert entries[2].changes == {"description": ["d", None], "location": ["L1", None]}


async def test_patch_refuses_bad_values_and_nulls(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    for fields in (
        {"title": None},
        {"title": ""},
        {"status": "DONE"},
        {"status": None},
        {"priority": None},
        {"pin": {"x": 2, "y": 0}},
        {"assigneeId": "nobody"},
        {"issueKind": "OCCUPANT"},
    ):
        response = await _patch(client, world, issue["id"], world.member.headers, **fields)
        assert response.status_code == 400, fields
    read = await client.get(
        f"{issues_url(world.project.id)}/{issue['id']}", headers=world.member.headers
    )
    assert read.json() == issue
    assert len(await audit_entries(issue["id"])) == 1


async def test_status_stamps(client: httpx.AsyncClient, world: World) -> None:
    clock.set_now(T0)
    issue = await create_issue(client, world.project.id, world.member.headers)
    headers = world.member.headers

    clock.set_now(T0 + timedelta(hours=1))
    body = (await _patch(client, world, issue["id"], headers, status="RESOLVED")).json()
    assert body["status"] == "RESOLVED"
    assert body["statusChangedAt"] == body["resolvedAt"] == "2026-11-21T10:00:00.000Z"
    assert body["closedAt"] is None

    clock.set_now(T0 + timedelta(hours=2))
    body = (await _patch(client, world, issue["id"], headers, status="CLOSED")).json()
    assert body["closedAt"] == body["statusChangedAt"] == "2026-11-21T11:00:00.000Z"
    assert body["resolvedAt"] == "2026-11-21T10:00:00.000Z"

    clock.set_now(T0 + timedelta(hours=3))
    body = (await _patch(client, world, issue["id"], headers, status="OPEN")).json()
    assert body["statusChangedAt"] == "2026-11-21T12:00:00.000Z"
    assert body["resolvedAt"] is None and body["closedAt"] is None

    clock.set_now(T0 + timedelta(hours=4))
    same = (await _patch(client, world, issue["id"], headers, status="OPEN")).json()
    assert same["statusChangedAt"] == "2026-11-21T12:00:00.000Z"

    body = (await _patch(client, world, issue["id"], headers, status="CLOSED")).json()
    assert body["closedAt"] == "2026-11-21T13:00:00.000Z" and body["resolvedAt"] is None

    history = [e.changes.get("status") for e in await audit_entries(issue["id"])][1:]
    assert history == [
        ["OPEN", "RESOLVED"],
        ["RESOLVED", "CLOSED"],
        ["CLOSED", "OPEN"],
        ["OPEN", "CLOSED"],
    ]


async def test_created_resolved_is_stamped(client: httpx.AsyncClient, world: World) -> None:
    body = await create_issue(client, world.project.id, world.member.headers, status="RESOLVED")
    assert body["resolvedAt"] == body["createdAt"] and body["closedAt"] is None


async def _make_occupant(issue_id: str) -> None:
    async with database.sessionmaker() as db:
        await db.execute(update(Issue).where(Issue.id == issue_id).values(issue_kind="OCCUPANT"))
        await db.commit()


async def test_kind_changes(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    converted = await _patch(
        client, world, issue["id"], world.member.headers, issueKind="WORK_ORDER"
    )
    assert converted.status_code == 200
    assert converted.json()["workOrderType"] == "CORRECTIVE"

    occupant = await create_issue(client, world.project.id, world.member.headers)
    await _make_occupant(occupant["id"])
    for fields in ({"issueKind": "CONSTRUCTION"}, {"issueKind": "OCCUPANT", "title": "x"}):
        response = await _patch(client, world, occupant["id"], world.manager.headers, **fields)
        if fields["issueKind"] == "OCCUPANT":
            assert response.status_code == 200  # unchanged kind is no change
        else:
            assert response.status_code == 400
    refused = await _patch(
        client, world, occupant["id"], world.member.headers, issueKind="WORK_ORDER"
    )
    assert refused.status_code == 403
    done = await _patch(
        client, world, occupant["id"], world.manager.headers, issueKind="WORK_ORDER"
    )
    assert done.status_code == 200
    assert done.json()["issueKind"] == "WORK_ORDER"
    assert done.json()["workOrderType"] == "OCCUPANT"
    back = await _patch(client, world, occupant["id"], world.manager.headers, issueKind="OCCUPANT")
    assert back.status_code == 400


async def test_assignment_notifies_the_assignee_only(
    client: httpx.AsyncClient, world: World, outbox: Path
) -> None:
    issue = await create_issue(
        client, world.project.id, world.manager.headers, assigneeId=world.manager.id
    )
    assert await notifications(world.project.id, "ISSUE_ASSIGNED") == []
    assert read_mails(outbox, world.manager.user.email) == []

    response = await _patch(
        client, world, issue["id"], world.manager.headers, assigneeId=world.member.id
    )
    assert response.status_code == 200
    [note] = await notifications(world.project.id, "ISSUE_ASSIGNED")
    assert note.user_id == world.member.id
    assert note.href == f"/projects/{world.project.id}/issues/{issue['id']}"
    [message] = read_mails(outbox, world.member.user.email)
    assert f"#{issue['number']}" in message["Subject"]
    assert f"/projects/{world.project.id}/issues/{issue['id']}" in message.get_content()

    again = await _patch(
        client, world, issue["id"], world.manager.headers, assigneeId=world.member.id
    )
    assert again.status_code == 200
    assert len(await notifications(world.project.id, "ISSUE_ASSIGNED")) == 1
    unassigned = await _patch(client, world, issue["id"], world.manager.headers, assigneeId=None)
    assert unassigned.json()["assigneeId"] is None

    await create_issue(
        client,
        world.project.id,
        world.member.headers,
        title="Leak\nBcc: someone@example.com",
        assigneeId=world.admin.id,
    )
    recipients = [n.user_id for n in await notifications(world.project.id, "ISSUE_ASSIGNED")]
    assert recipients == [world.member.id, world.admin.id]
    [to_admin] = read_mails(outbox, world.admin.user.email)
    assert "\n" not in to_admin["Subject"] and to_admin["Bcc"] is None


async def test_a_failed_request_sends_no_mail(
    client: httpx.AsyncClient, world: World, outbox: Path
) -> None:
    response = await client.post(
        issues_url(world.project.id),
        json={"title": "x", "assigneeId": world.admin.id, "pin": {"x": 3, "y": 0}},
        headers=world.member.headers,
    )
    assert response.status_code == 400
    assert read_mails(outbox, world.admin.user.email) == []
    assert await notifications(world.project.id, "ISSUE_ASSIGNED") == []


async def test_member_deletes_own_but_not_others(client: httpx.AsyncClient, world: World) -> None:
    url = issues_url(world.project.id)
    own = await create_issue(client, world.project.id, world.member.headers)
    theirs = await create_issue(client, world.project.id, world.manager.headers)
    refused = await client.delete(f"{url}/{theirs['id']}", headers=world.member.headers)
    assert refused.status_code == 403
    assert (
        await client.get(f"{url}/{theirs['id']}", headers=world.member.headers)
    ).status_code == 200
    deleted = await client.delete(f"{url}/{own['id']}", headers=world.member.headers)
    assert deleted.status_code == 200 and deleted.json() == {"ok": True}
    assert (await client.get(f"{url}/{own['id']}", headers=world.member.headers)).status_code == 404
    assert (
        await client.delete(f"{url}/{own['id']}", headers=world.member.headers)
    ).status_code == 404
    assert (
        await client.delete(f"{url}/{theirs['id']}", headers=world.manager.headers)
    ).status_code == 200
    listed = await client.get(url, headers=world.member.headers)
    assert listed.json() == []
    [*_, entry] = await audit_entries(own["id"])
    assert entry.action == "issue.deleted" and entry.actor_user_id == world.member.id


async def test_api_key_deletes_with_issues_write(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    reader, _ = await create_api_key(world.project, ["issues:read"])
    assert (await client.delete(url, headers=key_headers(reader))).status_code == 403
    writer, key = await create_api_key(world.project, ["issues:write"])
    assert (await client.delete(url, headers=key_headers(writer))).status_code == 200
    [*_, entry] = await audit_entries(issue["id"])
    assert entry.action == "issue.deleted" and entry.actor_key_id == key.id


async def test_numbers_are_never_reused(client: httpx.AsyncClient, world: World) -> None:
    first = await create_issue(client, world.project.id, world.member.headers)
    second = await create_issue(client, world.project.id, world.member.headers)
    url = issues_url(world.project.id)
    await client.delete(f"{url}/{second['id']}", headers=world.member.headers)
    third = await create_issue(client, world.project.id, world.member.headers)
    assert (first["number"], second["number"], third["number"]) == (1, 2, 3)


async def test_concurrent_creates_get_distinct_numbers(
    client: httpx.AsyncClient, world: World
) -> None:
    url = issues_url(world.project.id)
    responses = await asyncio.gather(
        *(
            client.post(url, json={"title": f"Issue {i}"}, headers=world.member.headers)
            for i in range(20)
        )
    )
    assert [r.status_code for r in responses] == [200] * 20
    assert sorted(r.json()["number"] for r in responses) == list(range(1, 21))


async def test_unknown_issue_is_404(client: httpx.AsyncClient, world: World) -> None:
    url = f"{issues_url(world.project.id)}/{'0' * 32}"
    for method in ("GET", "PATCH", "DELETE"):
        response = await client.request(method, url, json={}, headers=world.owner.headers)
        assert response.status_code == 404
        assert response.json() == {"error": "Issue not found", "code": "NOT_FOUND"}
    stranger = await create_user(name="No Body")
    assert (await client.get(url, headers=stranger.headers)).status_code == 404


async def test_patch_checklist_validates_and_defaults_as_create(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    response = await _patch(
        client,
        world,
        issue["id"],
        world.member.headers,
        checklist=[{"label": " x "}, {"id": "c2", "label": "y", "done": True}],
    )
    assert response.status_code == 200, response.text
    first, second = response.json()["checklist"]
    assert first["label"] == "x" and first["done"] is False and first["id"]
    assert second == {"id": "c2", "label": "y", "done": True}
    refused = await _patch(
        client, world, issue["id"], world.member.headers, checklist=[{"done": True}]
    )
    assert refused.status_code == 400
    assert refused.json()["details"][0]["field"] == "checklist.0.label"
