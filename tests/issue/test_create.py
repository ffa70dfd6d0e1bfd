"""POST /projects/{p}/issues: defaults, every field, validation, keys and scopes, tenancy."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.factories import (
    World,
    add_member,
    audit_entries,
    create_api_key,
    create_asset,
    create_project,
    create_schedule,
    create_user,
    key_headers,
    make_world,
    set_project,
)
from tests.issue.helpers import count_issues, create_file, create_issue, issues_url

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
RESPONSE_FIELDS = {
    "id",
    "projectId",
    "number",
    "externalId",
    "title",
    "description",
    "status",
    "priority",
    "issueKind",
    "assigneeId",
    "dueDate",
    "location",
    "fileId",
    "fileVersionId",
    "pageNumber",
    "pin",
    "assetId",
    "workOrderType",
    "maintenanceScheduleId",
    "checklist",
    "costs",
    "referencePhotos",
    "createdBy",
    "createdAt",
    "updatedAt",
    "statusChangedAt",
    "resolvedAt",
    "closedAt",
}


async def test_create_with_only_a_title(client: httpx.AsyncClient, world: World) -> None:
    response = await client.post(
        issues_url(world.project.id),
        json={"title": "  Cracked tile  "},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == RESPONSE_FIELDS
    assert body["projectId"] == world.project.id
    assert body["title"] == "Cracked tile"
    assert (body["status"], body["priority"], body["issueKind"]) == (
        "OPEN",
        "MEDIUM",
        "CONSTRUCTION",
    )
    assert body["number"] == 1
    assert body["description"] is None
    assert body["checklist"] == [] and body["referencePhotos"] == []
    assert body["costs"] is None  # a construction issue
    assert body["createdBy"] == world.member.id
    assert ISO.match(body["createdAt"]) and body["createdAt"] == body["updatedAt"]
    assert body["statusChangedAt"] == body["createdAt"]
    assert body["resolvedAt"] is None and body["closedAt"] is None
    read = await client.get(
        f"{issues_url(world.project.id)}/{body['id']}", headers=world.member.headers
    )
    assert read.status_code == 200
    assert read.json() == body
    [entry] = await audit_entries(body["id"])
    assert entry.action == "issue.created"
    assert entry.actor_user_id == world.member.id
    assert entry.changes["title"] == [None, "Cracked tile"]
    assert entry.changes["status"] == [None, "OPEN"]


async def test_create_with_every_field(client: httpx.AsyncClient, world: World) -> None:
    file_id, version_id = await create_file(world)
    await set_project(world.project.id, operations_mode=True)  # ids in bodies must exist
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"])
    payload = {
        "title": "Replace pump seal",
        "description": "Dripping since Monday",
        "status": "IN_PROGRESS",
        "priority": "URGENT",
        "issueKind": "WORK_ORDER",
        "assigneeId": world.manager.id,
        "dueDate": "2026-12-01",
        "location": "Plant room B2",
        "fileId": file_id,
        "fileVersionId": version_id,
        "pageNumber": 3,
        "pin": {"x": 0.25, "y": 1},
        "assetId": asset["id"],
        "workOrderType": "PREVENTIVE",
        "maintenanceScheduleId": schedule["id"],
        "checklist": [{"label": "Isolate pump"}, {"id": "c2", "label": "Swap seal", "done": True}],
    }
    body = await create_issue(client, world.project.id, world.member.headers, **payload)
    for key, value in payload.items():
        if key not in ("checklist", "pin"):
            assert body[key] == value, key
    assert body["pin"] == {"x": 0.25, "y": 1.0}
    first, second = body["checklist"]
    assert first["label"] == "Isolate pump" and first["done"] is False and first["id"]
    assert second == {"id": "c2", "label": "Swap seal", "done": True}
    listed = await client.get(issues_url(world.project.id), headers=world.member.headers)
    assert listed.json() == [body]


async def test_a_version_fills_in_its_file_and_foreign_files_are_refused(
    client: httpx.AsyncClient, world: World
) -> None:
    file_id, version_id = await create_file(world)
    body = await create_issue(
        client, world.project.id, world.member.headers, fileVersionId=version_id
    )
    assert body["fileId"] == file_id
    other = await make_world()
    other_file, other_version = await create_file(other)
    for fields in (
        {"fileId": other_file},
        {"fileVersionId": other_version},
        {"fileId": file_id, "fileVersionId": other_version},
    ):
        response = await client.post(
            issues_url(world.project.id),
            json={"title": "x", **fields},
            headers=world.member.headers,
        )
        assert response.status_code == 400, fields
        assert response.json()["code"] == "VALIDATION_FAILED"


async def test_due_date_accepts_a_date_time(client: httpx.AsyncClient, world: World) -> None:
    body = await create_issue(
        client, world.project.id, world.member.headers, dueDate="2026-12-01T15:30:00Z"
    )
    assert body["dueDate"] == "2026-12-01"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "title"),
        ({"title": ""}, "title"),
        ({"title": "   "}, "title"),
        ({"title": "x" * 501}, "title"),
        ({"title": "ok", "status": "DONE"}, "status"),
        ({"title": "ok", "status": None}, "status"),
        ({"title": "ok", "priority": "CRITICAL"}, "priority"),
        ({"title": "ok", "issueKind": "PUNCH"}, "issueKind"),
        ({"title": "ok", "issueKind": "OCCUPANT"}, "issueKind"),
        ({"title": "ok", "pin": {"x": 1.5, "y": 0.5}}, "pin.x"),
        ({"title": "ok", "pin": {"x": 0.5, "y": -0.1}}, "pin.y"),
        ({"title": "ok", "dueDate": "next week"}, "dueDate"),
        ({"title": "ok", "pageNumber": 0}, "pageNumber"),
        ({"title": "ok", "workOrderType": "EMERGENCY"}, "workOrderType"),
        ({"title": "ok", "checklist": [{"done": True}]}, "checklist.0.label"),
        ({"title": "ok", "description": 12}, "description"),
        ({"title": "ok", "assigneeId": "0" * 32}, "assigneeId"),
    ],
)
async def test_invalid_input_is_400_and_writes_nothing(
    client: httpx.AsyncClient, world: World, payload: dict[str, object], field: str
) -> None:
    response = await client.post(
        issues_url(world.project.id), json=payload, headers=world.member.headers
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED"
    assert field in [d["field"] for d in body["details"]]
    assert await count_issues(world.project.id) == 0


async def test_assignee_must_be_able_to_see_the_project(
    client: httpx.AsyncClient, world: World
) -> None:
    outsider = await create_user(name="Out Sider")
    restricted = await create_user(name="Res Tricted")
    elsewhere = await create_project(world.workspace, name="Elsewhere")
    await add_member(world.workspace, restricted, "MEMBER", project_ids=[elsewhere.id])
    client_user = await create_user(name="Cli Ent")
    await add_member(
        world.workspace, client_user, external_role="CLIENT", project_ids=[world.project.id]
    )
    for user in (outsider, restricted, client_user):
        response = await client.post(
            issues_url(world.project.id),
            json={"title": "x", "assigneeId": user.id},
            headers=world.manager.headers,
        )
        assert response.status_code == 400, user.user.name
    contractor = await create_user(name="Con Tractor")
    await add_member(
        world.workspace, contractor, external_role="CONTRACTOR", project_ids=[world.project.id]
    )
    named = await create_user(name="Na Med")
    await add_member(world.workspace, named, "MEMBER", project_ids=[world.project.id])
    for user in (contractor, named, world.owner):
        body = await create_issue(
            client, world.project.id, world.manager.headers, assigneeId=user.id
        )
        assert body["assigneeId"] == user.id
    assert await count_issues(world.project.id) == 3


async def test_api_key_with_issues_write_creates(client: httpx.AsyncClient, world: World) -> None:
    raw, key = await create_api_key(world.project, ["issues:write"])
    body = await create_issue(client, world.project.id, key_headers(raw))
    assert body["createdBy"] is None
    [entry] = await audit_entries(body["id"])
    assert entry.actor_key_id == key.id and entry.actor_user_id is None


async def test_api_key_scopes(client: httpx.AsyncClient, world: World) -> None:
    raw, _ = await create_api_key(world.project, ["issues:read"])
    url = issues_url(world.project.id)
    response = await client.post(url, json={"title": "x"}, headers=key_headers(raw))
    assert response.status_code == 403
    assert response.json() == {
        "error": "API key missing scope: issues:write",
        "code": "API_KEY_SCOPE",
    }
    assert await count_issues(world.project.id) == 0
    await create_issue(client, world.project.id, world.member.headers)
    listed = await client.get(url, headers=key_headers(raw))
    assert listed.status_code == 200 and len(listed.json()) == 1
    writer, _ = await create_api_key(world.project, ["issues:write"])
    response = await client.get(url, headers=key_headers(writer))
    assert response.status_code == 403
    assert response.json()["error"] == "API key missing scope: issues:read"


async def test_key_of_another_project_is_403(client: httpx.AsyncClient, world: World) -> None:
    other = await create_project(world.workspace, name="Other")
    raw, _ = await create_api_key(other, ["issues:read", "issues:write"])
    url = issues_url(world.project.id)
    response = await client.post(url, json={"title": "x"}, headers=key_headers(raw))
    assert response.status_code == 403
    assert response.json()["code"] == "API_KEY_PROJECT"
    assert (await client.get(url, headers=key_headers(raw))).status_code == 403


async def test_anonymous_is_401(client: httpx.AsyncClient, world: World) -> None:
    url = issues_url(world.project.id)
    assert (await client.post(url, json={"title": "x"})).status_code == 401
    assert (await client.get(url)).status_code == 401


async def test_other_workspace_is_404(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    stranger = await make_world()
    url = issues_url(world.project.id)
    for method, path in (
        ("GET", url),
        ("POST", url),
        ("GET", f"{url}/{issue['id']}"),
        ("PATCH", f"{url}/{issue['id']}"),
        ("DELETE", f"{url}/{issue['id']}"),
        ("GET", f"{url}/{issue['id']}/comments"),
        ("POST", f"{url}/{issue['id']}/comments"),
        ("GET", f"{url}/export.csv"),
    ):
        response = await client.request(
            method, path, json={"title": "x", "body": "x"}, headers=stranger.owner.headers
        )
        assert response.status_code == 404, (method, path)
    own_url = issues_url(stranger.project.id)
    for method in ("GET", "PATCH", "DELETE"):
        response = await client.request(
            method, f"{own_url}/{issue['id']}", json={}, headers=stranger.owner.headers
        )
        assert response.status_code == 404, method
    assert await count_issues(world.project.id) == 1


async def test_disabled_module_is_403(client: httpx.AsyncClient, world: World) -> None:
    await set_project(world.project.id, modules={"issues": False})
    url = issues_url(world.project.id)
    for response in (
        await client.get(url, headers=world.owner.headers),
        await client.post(url, json={"title": "x"}, headers=world.owner.headers),
    ):
        assert response.status_code == 403
        assert response.json()["error"] == "Issues is disabled for this project"
    assert await count_issues(world.project.id) == 0
