"""The caller's session on a project, project settings, the team and named access."""

from __future__ import annotations

import pytest

from plumbline.authz.permissions import ROLE_PERMISSIONS, Role
from tests.factories import (
    QueryCounter,
    add_member,
    create_api_key,
    create_project,
    create_user,
    key_headers,
    make_world,
)
from tests.project.helpers import audit_entries

MODULE_DEFAULTS = {
    "issues": True,
    "rfi": True,
    "punch": True,
    "fieldReports": True,
    "proposals": True,
    "schedule": True,
    "files": True,
    "om": False,
    "occupantPortal": False,
}
NO_VISIBILITY = {
    "showIssues": False,
    "showRfis": False,
    "showPunch": False,
    "showFieldReports": False,
    "showDrawings": False,
    "showSchedule": False,
}


# --- session --------------------------------------------------------------------------------


async def test_session_of_an_internal_member(client, world):
    response = await client.get(
        f"/api/v1/projects/{world.project.id}/session", headers=world.manager.headers
    )
    assert response.status_code == 200
    assert response.json() == {
        "projectId": world.project.id,
        "workspaceId": world.workspace.id,
        "role": "MANAGER",
        "projectRole": None,
        "isExternal": False,
        "permissions": sorted(str(p) for p in ROLE_PERMISSIONS[Role.MANAGER]),
        "modules": MODULE_DEFAULTS,
        "clientVisibility": NO_VISIBILITY,
        "plan": "enterprise",  # billing off: everything on
    }


async def test_session_of_an_external_client(client, world):
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CLIENT", project_ids=[world.project.id]
    )
    response = await client.get(
        f"/api/v1/projects/{world.project.id}/session", headers=external.headers
    )
    assert response.status_code == 200
    body = response.json()
    assert body["role"] == "MEMBER" and body["projectRole"] == "CLIENT"
    assert body["isExternal"] is True
    assert body["permissions"] == ["project:read", "records:read"]


async def test_session_refuses_keys_anonymous_and_strangers(client, world):
    url = f"/api/v1/projects/{world.project.id}/session"
    raw, _ = await create_api_key(world.project, ["project:read"])
    response = await client.get(url, headers=key_headers(raw))
    assert response.status_code == 403 and response.json()["code"] == "API_KEY_PROJECT"
    assert (await client.get(url)).status_code == 401
    other = await make_world()
    assert (await client.get(url, headers=other.member.headers)).status_code == 404


# --- settings -------------------------------------------------------------------------------


async def test_manager_switches_modules_and_visibility(client, world):
    url = f"/api/v1/projects/{world.project.id}/settings"
    response = await client.patch(
        url,
        json={"modules": {"rfi": False}, "clientVisibility": {"showIssues": True}},
        headers=world.manager.headers,
    )
    assert response.status_code == 200
    body = response.json()
    assert body == {
        "projectId": world.project.id,
        "operationsMode": False,
        "modules": {**MODULE_DEFAULTS, "rfi": False},
        "clientVisibility": {**NO_VISIBILITY, "showIssues": True},
    }
    # Partial maps merge with what is stored.
    response = await client.patch(
        url, json={"modules": {"punch": False}}, headers=world.manager.headers
    )
    assert response.json()["modules"] == {**MODULE_DEFAULTS, "rfi": False, "punch": False}
    session = await client.get(
        f"/api/v1/projects/{world.project.id}/session", headers=world.member.headers
    )
    assert session.json()["modules"]["rfi"] is False
    assert session.json()["clientVisibility"]["showIssues"] is True

    entries = await audit_entries(world.project.id, "project.settings_updated")
    assert [e.changes for e in entries] == [
        {"modules.rfi": [True, False], "clientVisibility.showIssues": [False, True]},
        {"modules.punch": [True, False]},
    ]
    assert all(e.actor_user_id == world.manager.id for e in entries)


async def test_operations_mode_turns_on_om_and_the_occupant_portal(client, world):
    url = f"/api/v1/projects/{world.project.id}/settings"
    response = await client.patch(url, json={"operationsMode": True}, headers=world.admin.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["operationsMode"] is True
    assert body["modules"]["om"] is True and body["modules"]["occupantPortal"] is True
    # An explicit switch wins over operations mode.
    response = await client.patch(
        url, json={"modules": {"occupantPortal": False}}, headers=world.admin.headers
    )
    assert response.json()["modules"]["occupantPortal"] is False
    project = await client.get(f"/api/v1/projects/{world.project.id}", headers=world.admin.headers)
    assert project.json()["operationsMode"] is True


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"modules": {"gantt": True}}, "modules"),
        ({"modules": {"rfi": False, "chat": True}}, "modules"),
        ({"modules": {"rfi": "sometimes"}}, "modules.rfi"),
        ({"clientVisibility": {"showBudget": True}}, "clientVisibility"),
        ({"modules": None}, "modules"),
        ({"operationsMode": None}, "operationsMode"),
        ({"operationsMode": "perhaps"}, "operationsMode"),
    ],
)
async def test_settings_reject_unknown_names_and_write_nothing(client, world, payload, field):
    url = f"/api/v1/projects/{world.project.id}/settings"
    response = await client.patch(url, json=payload, headers=world.manager.headers)
    assert response.status_code == 400, response.text
    assert field in [d["field"] for d in response.json()["details"]]
    session = await client.get(
        f"/api/v1/projects/{world.project.id}/session", headers=world.manager.headers
    )
    assert session.json()["modules"] == MODULE_DEFAULTS
    assert await audit_entries(world.project.id, "project.settings_updated") == []


async def test_settings_need_a_manager_session(client, world):
    url = f"/api/v1/projects/{world.project.id}/settings"
    body = {"modules": {"rfi": False}}
    assert (await client.patch(url, json=body, headers=world.member.headers)).status_code == 403
    raw, _ = await create_api_key(world.project, ["project:read"])
    response = await client.patch(url, json=body, headers=key_headers(raw))
    assert response.status_code == 403 and response.json()["code"] == "API_KEY_PROJECT"
    other = await make_world()
    assert (await client.patch(url, json=body, headers=other.owner.headers)).status_code == 404
    assert (await client.patch(url, json=body)).status_code == 401


# --- team -----------------------------------------------------------------------------------


async def test_team_lists_everyone_who_can_see_the_project(client, world):
    elsewhere = await create_project(world.workspace, name="Elsewhere")
    named = await create_user(name="Nina Named")
    hidden = await create_user(name="Hugo Hidden")
    contractor = await create_user(name="Carl Contractor")
    other_external = await create_user(name="Otto Other")
    await add_member(world.workspace, named, "MEMBER", project_ids=[world.project.id])
    await add_member(world.workspace, hidden, "MEMBER", project_ids=[elsewhere.id])
    await add_member(
        world.workspace, contractor, external_role="CONTRACTOR", project_ids=[world.project.id]
    )
    await add_member(
        world.workspace, other_external, external_role="CLIENT", project_ids=[elsewhere.id]
    )

    response = await client.get(
        f"/api/v1/projects/{world.project.id}/team", headers=world.member.headers
    )
    assert response.status_code == 200
    team = {m["userId"]: m for m in response.json()}
    expected = [world.owner, world.admin, world.manager, world.member, named, contractor]
    assert set(team) == {a.id for a in expected}
    assert team[contractor.id] == {
        "userId": contractor.id,
        "name": "Carl Contractor",
        "email": contractor.user.email,
        "role": "MEMBER",
        "projectRole": "CONTRACTOR",
        "isExternal": True,
    }
    assert team[world.owner.id]["role"] == "SUPER_ADMIN"
    assert team[named.id]["projectRole"] is None


async def test_team_is_paginated_and_runs_fixed_queries(client, world):
    url = f"/api/v1/projects/{world.project.id}/team"
    with QueryCounter() as small:
        first = await client.get(url, headers=world.member.headers)
    assert len(first.json()) == 4
    for n in range(20):
        await add_member(world.workspace, await create_user(name=f"Extra {n}"), "MEMBER")
    with QueryCounter() as large:
        response = await client.get(url, headers=world.member.headers)
    assert len(response.json()) == 24
    assert large.count == small.count

    page = await client.get(url, params={"limit": 10}, headers=world.member.headers)
    assert len(page.json()) == 10 and 'rel="next"' in page.headers["Link"]


async def test_team_refuses_strangers(client, world):
    url = f"/api/v1/projects/{world.project.id}/team"
    assert (await client.get(url)).status_code == 401
    other = await make_world()
    assert (await client.get(url, headers=other.owner.headers)).status_code == 404


# --- removing named access ------------------------------------------------------------------


async def test_admin_removes_named_access(client, world):
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CLIENT", project_ids=[world.project.id]
    )
    project_url = f"/api/v1/projects/{world.project.id}"
    assert (await client.get(project_url, headers=external.headers)).status_code == 200
    url = f"{project_url}/members/{external.id}"

    assert (await client.delete(url, headers=world.manager.headers)).status_code == 403
    assert (await client.delete(url, headers=world.member.headers)).status_code == 403
    response = await client.delete(url, headers=world.admin.headers)
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert (await client.get(project_url, headers=external.headers)).status_code == 404
    team = await client.get(f"{project_url}/team", headers=world.admin.headers)
    assert external.id not in {m["userId"] for m in team.json()}
    [entry] = await audit_entries(world.project.id, "project.member_removed")
    assert entry.changes == {"userId": [external.id, None], "projectRole": ["CLIENT", None]}
    assert entry.actor_user_id == world.admin.id

    again = await client.delete(url, headers=world.admin.headers)
    assert again.status_code == 404 and again.json()["code"] == "NOT_FOUND"


async def test_removing_a_user_without_named_access_is_404(client, world):
    url = f"/api/v1/projects/{world.project.id}/members/{world.member.id}"
    assert (await client.delete(url, headers=world.owner.headers)).status_code == 404
    other = await make_world()
    assert (await client.delete(url, headers=other.owner.headers)).status_code == 404
    assert (await client.delete(url)).status_code == 401
