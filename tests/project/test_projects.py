"""Projects in a workspace: listing what the caller can see, create, read, update, delete."""

from __future__ import annotations

import pytest

from plumbline.config import settings
from tests.factories import (
    QueryCounter,
    add_member,
    create_api_key,
    create_project,
    create_user,
    create_workspace,
    key_headers,
    make_world,
    set_workspace,
)
from tests.project.helpers import audit_entries, name_on_projects

PROJECT_KEYS = {
    "id",
    "workspaceId",
    "name",
    "stage",
    "location",
    "currency",
    "startDate",
    "endDate",
    "projectNumber",
    "timezone",
    "operationsMode",
    "createdAt",
    "updatedAt",
}


def projects_url(workspace_id: str) -> str:
    return f"/api/v1/workspaces/{workspace_id}/projects"


# --- list -----------------------------------------------------------------------------------


async def test_list_returns_visible_projects_newest_first(client, world):
    second = await create_project(world.workspace, name="Tower B", stage="Execution")
    gone = await create_project(world.workspace, name="Gone")
    response = await client.delete(f"/api/v1/projects/{gone.id}", headers=world.admin.headers)
    assert response.status_code == 200

    response = await client.get(projects_url(world.workspace.id), headers=world.member.headers)
    assert response.status_code == 200
    body = response.json()
    assert [p["id"] for p in body] == [second.id, world.project.id]
    assert set(body[0]) == PROJECT_KEYS
    assert body[0]["stage"] == "Execution"
    assert body[0]["workspaceId"] == world.workspace.id
    assert body[1]["currency"] == "USD" and body[1]["timezone"] == "UTC"
    assert body[1]["createdAt"].endswith("Z")
    assert "Link" not in response.headers


async def test_list_is_paginated_with_a_link_header(client, world):
    for n in range(4):
        await create_project(world.workspace, name=f"Extra {n}")
    url = projects_url(world.workspace.id)
    first = await client.get(url, params={"limit": 3}, headers=world.owner.headers)
    assert first.status_code == 200 and len(first.json()) == 3
    link = first.headers["Link"]
    assert link.endswith('>; rel="next"')
    second = await client.get(link[1 : link.index(">")], headers=world.owner.headers)
    assert second.status_code == 200
    ids = [p["id"] for p in first.json() + second.json()]
    assert len(ids) == 5 == len(set(ids))
    assert ids == sorted(ids, reverse=True)
    assert "Link" not in second.headers


async def test_list_with_a_bad_limit_is_400(client, world):
    url = projects_url(world.workspace.id)
    for params in ({"limit": 0}, {"limit": 1001}, {"limit": "many"}):
        response = await client.get(url, params=params, headers=world.member.headers)
        assert response.status_code == 400, params
        assert response.json()["code"] == "VALIDATION_FAILED"


async def test_restricted_member_sees_only_named_projects(client, world):
    allowed = await create_project(world.workspace, name="Allowed")
    await create_project(world.workspace, name="Hidden")
    restricted = await create_user(name="Rita Restricted")
    await add_member(world.workspace, restricted, "MEMBER", project_ids=[allowed.id])

    response = await client.get(projects_url(world.workspace.id), headers=restricted.headers)
    assert response.status_code == 200
    assert [p["id"] for p in response.json()] == [allowed.id]
    hidden = await client.get(f"/api/v1/projects/{world.project.id}", headers=restricted.headers)
    assert hidden.status_code == 404


async def test_external_sees_only_their_projects(client, world):
    theirs = await create_project(world.workspace, name="Client job")
    external = await create_user(name="Cleo Client")
    await add_member(world.workspace, external, external_role="CLIENT", project_ids=[theirs.id])

    response = await client.get(projects_url(world.workspace.id), headers=external.headers)
    assert response.status_code == 200
    assert [p["id"] for p in response.json()] == [theirs.id]


async def test_list_refuses_anonymous_strangers_and_keys(client, world):
    url = projects_url(world.workspace.id)
    assert (await client.get(url)).status_code == 401
    stranger = await create_user()
    assert (await client.get(url, headers=stranger.headers)).status_code == 404
    other = await make_world()
    response = await client.get(projects_url(other.workspace.id), headers=world.owner.headers)
    assert response.status_code == 404
    raw, _ = await create_api_key(world.project, ["project:read"])
    response = await client.get(url, headers=key_headers(raw))
    assert response.status_code == 403
    assert response.json()["error"] == "API keys are accepted on project-scoped routes only"


async def _count_list_queries(client, workspace_id, headers) -> tuple[int, int]:
    with QueryCounter() as counter:
        response = await client.get(projects_url(workspace_id), headers=headers)
    assert response.status_code == 200
    return counter.count, len(response.json())


@pytest.mark.parametrize("restricted", [False, True])
async def test_list_runs_a_fixed_number_of_queries(client, restricted):
    owner = await create_user()
    workspace = await create_workspace(owner)
    caller = await create_user()
    one = await create_project(workspace, name="One")
    await add_member(workspace, caller, "MEMBER", project_ids=[one.id] if restricted else None)
    small, rows = await _count_list_queries(client, workspace.id, caller.headers)
    assert rows == 1

    many = [await create_project(workspace, name=f"P{n}") for n in range(49)]
    if restricted:
        # More workspaces and more named projects must not add statements either.
        for n in range(3):
            await add_member(await create_workspace(owner, name=f"W{n}"), caller, "MEMBER")
        await name_on_projects(caller.id, workspace.id, [p.id for p in many])
    large, rows = await _count_list_queries(client, workspace.id, caller.headers)
    assert rows == 50
    assert large == small


# --- create ---------------------------------------------------------------------------------


async def test_manager_creates_a_project_with_defaults(client, world):
    response = await client.post(
        projects_url(world.workspace.id),
        json={"name": "  Harbor Bridge  "},
        headers=world.manager.headers,
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == PROJECT_KEYS
    assert body["name"] == "Harbor Bridge"
    assert body["stage"] == "Planning"
    assert body["currency"] == "USD"
    assert body["timezone"] == "UTC"
    assert body["operationsMode"] is False
    assert body["startDate"] is None and body["location"] is None
    assert body["workspaceId"] == world.workspace.id

    read = await client.get(f"/api/v1/projects/{body['id']}", headers=world.member.headers)
    assert read.status_code == 200 and read.json() == body
    [entry] = await audit_entries(body["id"], "project.created")
    assert entry.actor == "user" and entry.actor_user_id == world.manager.id
    assert entry.actor_key_id is None
    assert entry.changes["name"] == [None, "Harbor Bridge"]
    assert entry.workspace_id == world.workspace.id


async def test_create_with_every_field(client, world):
    payload = {
        "name": "Clinic",
        "location": "12 Quay St",
        "currency": "EUR",
        "stage": "On Hold",
        "startDate": "2026-03-01",
        "endDate": "2026-09-30T17:00:00-04:00",
        "projectNumber": "P-0042",
        "timezone": "Europe/Dublin",
        "unknownField": "ignored",
    }
    response = await client.post(
        projects_url(world.workspace.id), json=payload, headers=world.admin.headers
    )
    assert response.status_code == 200
    body = response.json()
    assert body["location"] == "12 Quay St"
    assert body["currency"] == "EUR"
    assert body["stage"] == "On Hold"
    assert body["startDate"] == "2026-03-01"
    assert body["endDate"] == "2026-09-30"
    assert body["projectNumber"] == "P-0042"
    assert body["timezone"] == "Europe/Dublin"
    assert "unknownField" not in body


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 201}, "name"),
        ({"name": "A", "currency": "usd"}, "currency"),
        ({"name": "A", "currency": "EURO"}, "currency"),
        ({"name": "A", "currency": None}, "currency"),
        ({"name": "A", "stage": "Demolition"}, "stage"),
        ({"name": "A", "timezone": "Mars/Olympus"}, "timezone"),
        ({"name": "A", "timezone": "../etc/passwd"}, "timezone"),
        ({"name": "A", "startDate": "2026-13-01"}, "startDate"),
        ({"name": "A", "startDate": "next week"}, "startDate"),
        ({"name": "A", "startDate": "2026-05-02", "endDate": "2026-05-01"}, "endDate"),
    ],
)
async def test_create_rejects_bad_input(client, world, payload, field):
    response = await client.post(
        projects_url(world.workspace.id), json=payload, headers=world.manager.headers
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED"
    assert field in [d["field"] for d in body["details"]]
    listed = await client.get(projects_url(world.workspace.id), headers=world.owner.headers)
    assert [p["id"] for p in listed.json()] == [world.project.id]


async def test_member_and_external_cannot_create(client, world):
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CONTRACTOR", project_ids=[world.project.id]
    )
    for actor in (world.member, external):
        response = await client.post(
            projects_url(world.workspace.id), json={"name": "Nope"}, headers=actor.headers
        )
        assert response.status_code == 403
        assert response.json()["code"] == "FORBIDDEN"
    assert (
        await client.post(projects_url(world.workspace.id), json={"name": "A"})
    ).status_code == 401
    other = await make_world()
    response = await client.post(
        projects_url(other.workspace.id), json={"name": "A"}, headers=world.owner.headers
    )
    assert response.status_code == 404


async def test_restricted_manager_keeps_access_to_what_they_create(client, world):
    manager = await create_user()
    await add_member(world.workspace, manager, "MANAGER", project_ids=[])
    response = await client.post(
        projects_url(world.workspace.id), json={"name": "Mine"}, headers=manager.headers
    )
    assert response.status_code == 200
    created = response.json()["id"]
    listed = await client.get(projects_url(world.workspace.id), headers=manager.headers)
    assert [p["id"] for p in listed.json()] == [created]


async def test_writes_need_an_active_subscription_when_billing_is_on(client, world, monkeypatch):
    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="team", subscription_status="canceled")
    response = await client.post(
        projects_url(world.workspace.id), json={"name": "Late"}, headers=world.owner.headers
    )
    assert response.status_code == 402
    assert response.json()["code"] == "SUBSCRIPTION_INACTIVE"
    response = await client.patch(
        f"/api/v1/projects/{world.project.id}", json={"name": "X"}, headers=world.owner.headers
    )
    assert response.status_code == 402
    # Reads keep working.
    response = await client.get(f"/api/v1/projects/{world.project.id}", headers=world.owner.headers)
    assert response.status_code == 200 and response.json()["name"] == "Tower A"


# --- read, update, delete -------------------------------------------------------------------


async def test_read_project_needs_visibility(client, world):
    url = f"/api/v1/projects/{world.project.id}"
    response = await client.get(url, headers=world.member.headers)
    assert response.status_code == 200
    assert response.json()["id"] == world.project.id
    assert (await client.get(url)).status_code == 401
    other = await make_world()
    assert (await client.get(url, headers=other.owner.headers)).status_code == 404
    assert (
        await client.get("/api/v1/projects/nope", headers=world.member.headers)
    ).status_code == 404


async def test_manager_updates_given_fields_only(client, world):
    url = f"/api/v1/projects/{world.project.id}"
    before = (await client.get(url, headers=world.manager.headers)).json()
    response = await client.patch(
        url,
        json={"stage": "Execution", "location": "Pier 4", "startDate": "2026-01-05"},
        headers={**world.manager.headers, "X-Request-Id": "req-update-1"},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["stage"] == "Execution" and body["location"] == "Pier 4"
    assert body["startDate"] == "2026-01-05"
    assert body["name"] == before["name"] and body["currency"] == before["currency"]
    assert body["updatedAt"] >= before["updatedAt"]

    [entry] = await audit_entries(world.project.id, "project.updated")
    assert entry.actor_user_id == world.manager.id and entry.actor == "user"
    assert entry.request_id == "req-update-1"
    assert entry.changes == {
        "stage": ["Planning", "Execution"],
        "location": [None, "Pier 4"],
        "startDate": [None, "2026-01-05"],
    }

    cleared = await client.patch(url, json={"location": None}, headers=world.manager.headers)
    assert cleared.status_code == 200 and cleared.json()["location"] is None


async def test_update_with_no_change_writes_no_audit_entry(client, world):
    url = f"/api/v1/projects/{world.project.id}"
    response = await client.patch(url, json={"name": "Tower A"}, headers=world.manager.headers)
    assert response.status_code == 200
    assert await audit_entries(world.project.id, "project.updated") == []


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": None}, "name"),
        ({"name": ""}, "name"),
        ({"currency": None}, "currency"),
        ({"stage": "Later"}, "stage"),
        ({"timezone": "Nowhere"}, "timezone"),
        ({"endDate": "2025-12-31"}, "endDate"),
        ({"operationsMode": None}, "operationsMode"),
    ],
)
async def test_update_rejects_bad_input_and_writes_nothing(client, world, payload, field):
    url = f"/api/v1/projects/{world.project.id}"
    set_start = await client.patch(
        url, json={"startDate": "2026-01-01"}, headers=world.manager.headers
    )
    assert set_start.status_code == 200
    before = set_start.json()
    response = await client.patch(
        url, json={**payload, "location": "Changed"}, headers=world.manager.headers
    )
    assert response.status_code == 400, response.text
    assert field in [d["field"] for d in response.json()["details"]]
    assert (await client.get(url, headers=world.manager.headers)).json() == before


async def test_member_cannot_update_and_keys_are_refused(client, world):
    url = f"/api/v1/projects/{world.project.id}"
    response = await client.patch(url, json={"name": "Mine"}, headers=world.member.headers)
    assert response.status_code == 403
    raw, _ = await create_api_key(world.project, ["project:read"])
    response = await client.patch(url, json={"name": "Key"}, headers=key_headers(raw))
    assert response.status_code == 403 and response.json()["code"] == "API_KEY_PROJECT"
    other = await make_world()
    response = await client.patch(url, json={"name": "X"}, headers=other.owner.headers)
    assert response.status_code == 404
    assert (await client.patch(url, json={"name": "X"})).status_code == 401


async def test_admin_soft_deletes_a_project(client, world):
    url = f"/api/v1/projects/{world.project.id}"
    assert (await client.delete(url, headers=world.manager.headers)).status_code == 403
    assert (await client.delete(url, headers=world.member.headers)).status_code == 403
    other = await make_world()
    assert (await client.delete(url, headers=other.owner.headers)).status_code == 404
    response = await client.delete(url, headers=world.admin.headers)
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert (await client.get(url, headers=world.admin.headers)).status_code == 404
    assert (await client.delete(url, headers=world.admin.headers)).status_code == 404
    listed = await client.get(projects_url(world.workspace.id), headers=world.admin.headers)
    assert listed.json() == []
    [entry] = await audit_entries(world.project.id, "project.deleted")
    assert entry.actor_user_id == world.admin.id
    assert entry.changes["deletedAt"][0] is None
