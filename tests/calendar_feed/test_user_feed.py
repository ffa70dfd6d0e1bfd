"""A user's feed: what is due for them in every project they see, and nothing else."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
from sqlalchemy import update

from plumbline.db import database
from plumbline.models import ProjectMember
from tests.calendar_feed.helpers import by_uid, fetch, make_feed, path_of
from tests.factories import (
    QueryCounter,
    World,
    add_member,
    create_asset,
    create_schedule,
    external,
    make_world,
    om_world,
    set_client_visibility,
)
from tests.om_inspections.helpers import create_run, create_template

HOST = "127.0.0.1"


async def _post(client: httpx.AsyncClient, world: World, path: str, body: dict[str, Any]) -> Any:
    response = await client.post(
        f"/api/v1/projects/{world.project.id}/{path}", json=body, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


async def _due_for(client: httpx.AsyncClient, world: World, user_id: str) -> dict[str, Any]:
    """One of each kind due for ``user_id``; each also once for someone else, or undated."""
    other = world.manager.id
    made: dict[str, Any] = {}
    made["issue"] = await _post(
        client, world, "issues", {"title": "Leak", "dueDate": "2027-05-01", "assigneeId": user_id}
    )
    made["work_order"] = await _post(
        client,
        world,
        "issues",
        {"title": "Fix pump", "issueKind": "WORK_ORDER", "dueDate": "2027-05-02",
         "assigneeId": user_id},
    )  # fmt: skip
    await _post(client, world, "issues", {"title": "Theirs", "dueDate": "2027-05-01",
                                          "assigneeId": other})  # fmt: skip
    await _post(client, world, "issues", {"title": "Undated", "assigneeId": user_id})
    made["responder"] = await _post(
        client, world, "rfi", {"title": "Slab?", "dueDate": "2027-05-03", "assigneeIds": [user_id]}
    )
    made["managed"] = await _post(
        client, world, "rfi", {"title": "Door?", "dueDate": "2027-05-04", "managerId": user_id}
    )
    await _post(client, world, "rfi", {"title": "Not mine", "dueDate": "2027-05-04"})
    made["punch"] = await _post(
        client,
        world,
        "punch",
        {"title": "Paint", "dueDate": "2027-05-05", "assigneeIds": [user_id]},
    )
    await _post(client, world, "punch", {"title": "Theirs", "dueDate": "2027-05-05",
                                         "assigneeIds": [other]})  # fmt: skip
    asset = await create_asset(client, world)
    made["maintenance"] = await create_schedule(
        client, world, asset["id"], assigneeId=user_id, nextDueAt="2027-05-06T12:00:00Z"
    )
    await create_schedule(client, world, asset["id"], assigneeId=other)
    template = await create_template(client, world)
    made["run"] = await create_run(
        client, world, template["id"], headers=world.manager.headers, assigneeId=user_id
    )
    await create_run(client, world, template["id"], headers=world.manager.headers)
    tasks = [
        {"id": "mine", "name": "Framing", "startDate": "2027-05-07T08:00:00Z",
         "endDate": "2027-05-09T17:00:00Z", "assigneeId": user_id},
        {"id": "done", "name": "Survey", "startDate": "2027-04-01T08:00:00Z",
         "endDate": "2027-04-02T17:00:00Z", "assigneeId": user_id, "status": "COMPLETED"},
        {"id": "theirs", "name": "Roofing", "startDate": "2027-05-07T08:00:00Z",
         "endDate": "2027-05-09T17:00:00Z", "assigneeId": other},
    ]  # fmt: skip
    put = await client.put(
        f"/api/v1/projects/{world.project.id}/schedule",
        json={"tasks": tasks},
        headers=world.manager.headers,
    )
    assert put.status_code == 200, put.text
    return made


def _expected(world: World, made: dict[str, Any]) -> set[str]:
    return {
        f"issue-{made['issue']['id']}@{HOST}",
        f"issue-{made['work_order']['id']}@{HOST}",
        f"rfi-{made['responder']['id']}@{HOST}",
        f"rfi-{made['managed']['id']}@{HOST}",
        f"punch-{made['punch']['id']}@{HOST}",
        f"maintenance-{made['maintenance']['id']}@{HOST}",
        f"inspection-run-{made['run']['id']}@{HOST}",
        f"task-{world.project.id}-mine@{HOST}",
    }


async def test_everything_due_for_the_user(client: httpx.AsyncClient) -> None:
    world = await om_world()
    made = await _due_for(client, world, world.member.id)
    proposal = await client.post(
        f"/api/v1/projects/{world.project.id}/proposals",
        json={"title": "Fit-out", "validUntil": "2027-06-01T17:00:00Z"},
        headers=world.member.headers,
    )
    assert proposal.status_code == 200, proposal.text
    feed = await make_feed(client, world.member.headers)
    events = by_uid(await fetch(client, feed))
    expiry = f"proposal-{proposal.json()['id']}@{HOST}"
    assert set(events) == _expected(world, made) | {expiry}
    issue = events[f"issue-{made['issue']['id']}@{HOST}"]
    assert issue.start == date(2027, 5, 1) and issue.end == date(2027, 5, 2)
    # Each names its project: a user's feed spans them.
    assert str(issue["SUMMARY"]) == f"Issue #{made['issue']['number']} due: Leak (Tower A)"
    work_order = events[f"issue-{made['work_order']['id']}@{HOST}"]
    assert str(work_order["SUMMARY"]).startswith("Work order #")
    assert events[f"inspection-run-{made['run']['id']}@{HOST}"].start == date(2026, 1, 31)
    # The manager's own feed: the RFI they manage (its creator), none of the member's others.
    theirs = by_uid(await fetch(client, await make_feed(client, world.manager.headers)))
    assert set(theirs) & _expected(world, made) == {f"rfi-{made['responder']['id']}@{HOST}"}


async def test_projects_come_and_go_with_access(client: httpx.AsyncClient) -> None:
    first, second = await make_world(), await make_world()
    user = first.member
    await add_member(second.workspace, user, "MEMBER")
    dated = {"title": "Check", "dueDate": "2027-05-01", "assigneeId": user.id}
    one = await _post(client, first, "issues", dated)
    two = await _post(client, second, "issues", dated)
    feed = await make_feed(client, user.headers)
    assert set(by_uid(await fetch(client, feed))) >= {
        f"issue-{one['id']}@{HOST}",
        f"issue-{two['id']}@{HOST}",
    }
    removed = await client.delete(
        f"/api/v1/workspaces/{second.workspace.id}/members/{user.id}",
        headers=second.owner.headers,
    )
    assert removed.status_code == 200, removed.text
    left = set(by_uid(await fetch(client, feed)))
    assert f"issue-{one['id']}@{HOST}" in left and f"issue-{two['id']}@{HOST}" not in left


async def _set_project_role(world: World, user_id: str, role: str) -> None:
    async with database.sessionmaker() as db:
        await db.execute(
            update(ProjectMember)
            .where(ProjectMember.project_id == world.project.id, ProjectMember.user_id == user_id)
            .values(project_role=role)
        )
        await db.commit()


async def test_externals_see_what_their_role_shows(client: httpx.AsyncClient) -> None:
    world = await make_world()
    outsider = await external(world, "CONTRACTOR", name="Con Tractor")
    issue = await _post(
        client,
        world,
        "issues",
        {"title": "Snag", "dueDate": "2027-05-01", "assigneeId": outsider.id},
    )
    feed = await make_feed(client, outsider.headers)
    uid = f"issue-{issue['id']}@{HOST}"
    assert uid in by_uid(await fetch(client, feed))
    # As the project's CLIENT, only what the project shares with clients.
    await _set_project_role(world, outsider.id, "CLIENT")
    assert uid not in by_uid(await fetch(client, feed))
    await set_client_visibility(world.project, showIssues=True)
    assert uid in by_uid(await fetch(client, feed))
    assert (await client.head(path_of(feed))).status_code == 200


async def test_fixed_statements_whatever_the_rows(client: httpx.AsyncClient) -> None:
    counts = []
    for n in (1, 4):
        world = await om_world()
        for _ in range(n):
            await _due_for(client, world, world.member.id)
        feed = await make_feed(client, world.member.headers)
        with QueryCounter() as queries:
            events = by_uid(await fetch(client, feed))
        assert sum(uid.startswith("rfi-") for uid in events) == 2 * n
        counts.append(queries.count)
    assert counts[0] == counts[1], counts
    # The feed, the user's projects, seven kinds of record, the last-use stamp.
    assert counts[0] == 10, counts
