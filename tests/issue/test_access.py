"""External collaborators (PRODUCT §4) and comments."""

from __future__ import annotations

import httpx

from tests.factories import (
    Actor,
    World,
    add_member,
    audit_entries,
    create_api_key,
    create_project,
    create_user,
    key_headers,
    set_project,
)
from tests.issue.helpers import create_issue, issues_url, notifications


async def _external(world: World, role: str, project_id: str | None = None) -> Actor:
    actor = await create_user(name=f"{role.title()} Person")
    await add_member(
        world.workspace, actor, external_role=role, project_ids=[project_id or world.project.id]
    )
    return actor


async def test_contractor_sees_and_updates_only_their_issues(
    client: httpx.AsyncClient, world: World
) -> None:
    contractor = await _external(world, "SUBCONTRACTOR")
    url = issues_url(world.project.id)
    assigned = await create_issue(
        client, world.project.id, world.manager.headers, assigneeId=contractor.id
    )
    hidden = await create_issue(client, world.project.id, world.manager.headers)
    own = await create_issue(client, world.project.id, contractor.headers, title="Found a gap")
    assert own["createdBy"] == contractor.id

    listed = await client.get(url, headers=contractor.headers)
    assert [i["id"] for i in listed.json()] == [own["id"], assigned["id"]]
    assert (
        await client.get(f"{url}/{hidden['id']}", headers=contractor.headers)
    ).status_code == 404
    patched = await client.patch(
        f"{url}/{assigned['id']}", json={"status": "RESOLVED"}, headers=contractor.headers
    )
    assert patched.status_code == 200 and patched.json()["status"] == "RESOLVED"
    for assignee_id in (world.manager.id, None):  # neither handed on nor dropped
        reassigned = await client.patch(
            f"{url}/{assigned['id']}", json={"assigneeId": assignee_id}, headers=contractor.headers
        )
        assert reassigned.status_code == 403 and reassigned.json()["code"] == "FORBIDDEN"
    kept = await client.patch(  # naming the current assignee again changes nothing
        f"{url}/{assigned['id']}",
        json={"assigneeId": contractor.id, "location": "Level 3"},
        headers=contractor.headers,
    )
    assert kept.status_code == 200 and kept.json()["assigneeId"] == contractor.id
    refused = await client.patch(
        f"{url}/{hidden['id']}", json={"status": "RESOLVED"}, headers=contractor.headers
    )
    assert refused.status_code == 404
    exported = await client.get(f"{url}/export.csv", headers=contractor.headers)
    assert hidden["id"] not in exported.text and assigned["id"] in exported.text
    deleted = await client.delete(f"{url}/{own['id']}", headers=contractor.headers)
    assert deleted.status_code == 403
    commented = await client.post(
        f"{url}/{assigned['id']}/comments", json={"body": "On it"}, headers=contractor.headers
    )
    assert commented.status_code == 200


async def test_external_of_another_project_sees_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    other = await create_project(world.workspace, name="Other")
    contractor = await _external(world, "CONTRACTOR", other.id)
    issue = await create_issue(client, world.project.id, world.manager.headers)
    url = issues_url(world.project.id)
    assert (await client.get(url, headers=contractor.headers)).status_code == 404
    assert (await client.get(f"{url}/{issue['id']}", headers=contractor.headers)).status_code == 404


async def test_client_reads_shared_issues_and_comments(
    client: httpx.AsyncClient, world: World
) -> None:
    client_user = await _external(world, "CLIENT")
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = issues_url(world.project.id)
    item = f"{url}/{issue['id']}"

    hidden = await client.get(url, headers=client_user.headers)
    assert hidden.status_code == 403
    assert hidden.json()["error"] == "Issues are not shared with clients on this project"
    assert (await client.get(f"{url}/export.csv", headers=client_user.headers)).status_code == 403
    assert (await client.get(item, headers=client_user.headers)).status_code == 404
    comment = await client.post(
        f"{item}/comments", json={"body": "Hello"}, headers=client_user.headers
    )
    assert comment.status_code == 404

    await set_project(world.project.id, client_visibility={"showIssues": True})
    listed = await client.get(url, headers=client_user.headers)
    assert [i["id"] for i in listed.json()] == [issue["id"]]
    assert (await client.get(item, headers=client_user.headers)).status_code == 200
    for method, path, body in (
        ("POST", url, {"title": "x"}),
        ("PATCH", item, {"title": "x"}),
        ("DELETE", item, None),
    ):
        response = await client.request(method, path, json=body, headers=client_user.headers)
        assert response.status_code == 403, method
    comment = await client.post(
        f"{item}/comments", json={"body": "When will this be fixed?"}, headers=client_user.headers
    )
    assert comment.status_code == 200
    assert comment.json()["authorName"] == "Client Person"


async def test_comments(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(
        client, world.project.id, world.member.headers, assigneeId=world.manager.id
    )
    url = f"{issues_url(world.project.id)}/{issue['id']}/comments"
    assert (await client.get(url, headers=world.member.headers)).json() == []

    response = await client.post(
        url, json={"body": "  Checked on site  "}, headers=world.admin.headers
    )
    assert response.status_code == 200
    comment = response.json()
    assert set(comment) == {"id", "issueId", "body", "authorId", "authorName", "createdAt"}
    assert comment["body"] == "Checked on site"
    assert (comment["issueId"], comment["authorId"]) == (issue["id"], world.admin.id)
    assert comment["authorName"] == "Ada Admin"
    recipients = {n.user_id for n in await notifications(world.project.id, "ISSUE_COMMENTED")}
    assert recipients == {world.member.id, world.manager.id}

    await client.post(url, json={"body": "Thanks"}, headers=world.member.headers)
    recipients_after = [n.user_id for n in await notifications(world.project.id, "ISSUE_COMMENTED")]
    assert recipients_after.count(world.member.id) == 1
    assert recipients_after.count(world.manager.id) == 2

    raw, key = await create_api_key(world.project, ["issues:read", "issues:write"])
    by_key = await client.post(url, json={"body": "Synced from ERP"}, headers=key_headers(raw))
    assert by_key.status_code == 200
    assert by_key.json()["authorId"] is None and by_key.json()["authorName"] == "API key"

    listed = (await client.get(url, headers=key_headers(raw))).json()
    assert [c["body"] for c in listed] == ["Synced from ERP", "Thanks", "Checked on site"]
    assert listed[2] == comment
    actions = [(e.action, e.actor_key_id) for e in await audit_entries(issue["id"])]
    assert actions[-1] == ("issue.commented", key.id)

    for body in ({}, {"body": ""}, {"body": "   "}, {"body": "x" * 10001}):
        bad = await client.post(url, json=body, headers=world.member.headers)
        assert bad.status_code == 400, body
    reader, _ = await create_api_key(world.project, ["issues:read"])
    refused = await client.post(url, json={"body": "x"}, headers=key_headers(reader))
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: issues:write"
    assert (await client.post(url, json={"body": "x"})).status_code == 401
    assert len((await client.get(url, headers=world.member.headers)).json()) == 3
