"""The project audit trail: listing with filters, and the streamed CSV/JSON export."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

import pytest

from tests.audit.helpers import add_entries
from tests.factories import QueryCounter, create_api_key, create_project, key_headers, make_world

ENTRY_KEYS = {
    "id",
    "workspaceId",
    "projectId",
    "actor",
    "actorUserId",
    "actorKeyId",
    "action",
    "entityType",
    "entityId",
    "changes",
    "requestId",
    "ip",
    "createdAt",
}


def logs_url(project_id: str) -> str:
    return f"/api/v1/projects/{project_id}/audit-logs"


async def _project_writes(client, world) -> str:
    """A manager creates a project and an admin renames it; returns the project id."""
    response = await client.post(
        f"/api/v1/workspaces/{world.workspace.id}/projects",
        json={"name": "Audited", "location": "Dock 7"},
        headers={**world.manager.headers, "X-Request-Id": "req-create"},
    )
    assert response.status_code == 200
    project_id = response.json()["id"]
    response = await client.patch(
        f"/api/v1/projects/{project_id}", json={"name": "Audited 2"}, headers=world.admin.headers
    )
    assert response.status_code == 200
    return project_id


async def test_project_writes_appear_in_the_audit_log(client, world):
    project_id = await _project_writes(client, world)
    response = await client.get(logs_url(project_id), headers=world.manager.headers)
    assert response.status_code == 200
    updated, created = response.json()
    assert set(created) == ENTRY_KEYS
    assert created["action"] == "project.created"
    assert created["actor"] == "user" and created["actorUserId"] == world.manager.id
    assert created["actorKeyId"] is None
    assert created["entityType"] == "project" and created["entityId"] == project_id
    assert created["workspaceId"] == world.workspace.id and created["projectId"] == project_id
    assert created["changes"]["location"] == [None, "Dock 7"]
    assert created["requestId"] == "req-create"
    assert created["ip"] and created["createdAt"].endswith("Z")
    assert updated["action"] == "project.updated"
    assert updated["actorUserId"] == world.admin.id
    assert updated["changes"] == {"name": ["Audited", "Audited 2"]}


async def test_filters(client, world):
    project_id = await _project_writes(client, world)
    url = logs_url(project_id)
    h = world.manager.headers

    async def actions(**params) -> list[str]:
        response = await client.get(url, params=params, headers=h)
        assert response.status_code == 200, response.text
        return [e["action"] for e in response.json()]

    assert await actions(action="project.updated") == ["project.updated"]
    assert await actions(entityType="project") == ["project.updated", "project.created"]
    assert await actions(entityType="issue") == []
    assert await actions(entityId=project_id) == ["project.updated", "project.created"]
    assert await actions(actorId=world.admin.id) == ["project.updated"]
    assert await actions(actorId=world.member.id) == []

    _, key = await create_api_key(world.project, [])
    await add_entries(
        project_id, world.workspace.id, 1, action="issue.created", actor_key_id=key.id
    )
    assert await actions(actorId=key.id) == ["issue.created"]

    old = datetime(2020, 6, 1, 12, tzinfo=UTC)
    await add_entries(project_id, world.workspace.id, 2, action="rfi.answered", at=old)
    assert await actions(to="2020-06-01T12:00:00Z") == ["rfi.answered"] * 2
    assert await actions(to="2020-06-01T11:59:59Z") == []
    assert "rfi.answered" not in await actions(**{"from": "2021-01-01T00:00:00Z"})
    assert (
        await actions(**{"from": "2020-06-01T00:00:00+00:00", "to": "2020-06-02"})
        == ["rfi.answered"] * 2
    )


@pytest.mark.parametrize(
    "params", [{"from": "yesterday"}, {"to": "2026-99-01"}, {"limit": 0}, {"action": "x" * 65}]
)
async def test_bad_filters_are_400(client, world, params):
    response = await client.get(
        logs_url(world.project.id), params=params, headers=world.owner.headers
    )
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_FAILED"


async def test_only_other_projects_entries_are_hidden(client, world):
    other_project = await create_project(world.workspace, name="Other")
    await add_entries(other_project.id, world.workspace.id, 3)
    mine = await add_entries(world.project.id, world.workspace.id, 2)
    response = await client.get(logs_url(world.project.id), headers=world.manager.headers)
    assert [e["id"] for e in response.json()] == mine[::-1]


async def test_list_is_manager_and_above(client, world):
    url = logs_url(world.project.id)
    assert (await client.get(url, headers=world.member.headers)).status_code == 403
    assert (await client.get(url, headers=world.manager.headers)).status_code == 200
    assert (await client.get(url)).status_code == 401
    other = await make_world()
    assert (await client.get(url, headers=other.owner.headers)).status_code == 404


async def test_list_is_paginated_with_fixed_queries(client, world):
    url, h = logs_url(world.project.id), world.owner.headers
    await add_entries(world.project.id, world.workspace.id, 1)
    with QueryCounter() as small:
        response = await client.get(url, params={"limit": 1000}, headers=h)
    assert response.status_code == 200 and len(response.json()) == 1
    ids = await add_entries(world.project.id, world.workspace.id, 499)
    with QueryCounter() as large:
        response = await client.get(url, params={"limit": 1000}, headers=h)
    assert response.status_code == 200 and "link" not in response.headers
    assert len(response.json()) == 500
    assert large.count == small.count, (small.count, large.count)

    listed, sizes = [], []
    next_url: str | None = f"{url}?limit=200"
    while next_url:
        page = await client.get(next_url, headers=h)
        sizes.append(len(page.json()))
        listed += [e["id"] for e in page.json()]
        link = page.headers.get("Link")
        next_url = link[1 : link.index(">")] if link else None
    assert sizes == [200, 200, 100]
    assert listed[:499] == ids[::-1] and len(listed) == 500


# --- export ---------------------------------------------------------------------------------


async def test_csv_export(client, world):
    project_id = await _project_writes(client, world)
    response = await client.get(
        f"{logs_url(project_id)}/export", params={"format": "csv"}, headers=world.admin.headers
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"] == (
        f'attachment; filename="audit-log-{project_id}.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [r["action"] for r in rows] == ["project.created", "project.updated"]
    assert rows[0]["actorUserId"] == world.manager.id and rows[0]["actor"] == "user"
    assert rows[0]["actorKeyId"] == ""
    assert json.loads(rows[1]["changes"]) == {"name": ["Audited", "Audited 2"]}
    assert set(rows[0]) == ENTRY_KEYS


async def test_json_export_is_one_array(client, world):
    project_id = await _project_writes(client, world)
    response = await client.get(
        f"{logs_url(project_id)}/export", params={"format": "json"}, headers=world.owner.headers
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["content-disposition"].startswith("attachment;")
    entries = response.json()
    assert [e["action"] for e in entries] == ["project.created", "project.updated"]
    assert set(entries[0]) == ENTRY_KEYS

    empty = await client.get(
        f"{logs_url(project_id)}/export",
        params={"format": "json", "action": "nothing"},
        headers=world.owner.headers,
    )
    assert empty.json() == []


@pytest.mark.parametrize("fmt", ["csv", "json"])
async def test_export_streams_every_batch_oldest_first(client, world, fmt):
    ids = await add_entries(world.project.id, world.workspace.id, 1203)
    other = await add_entries(world.project.id, world.workspace.id, 5, action="rfi.created")
    response = await client.get(
        f"{logs_url(world.project.id)}/export",
        params={"format": fmt, "action": "issue.updated"},
        headers=world.admin.headers,
    )
    assert response.status_code == 200
    if fmt == "csv":
        exported = [r["id"] for r in csv.DictReader(io.StringIO(response.text))]
    else:
        exported = [e["id"] for e in response.json()]
    assert exported == ids
    assert not set(other) & set(exported)


async def test_export_defuses_spreadsheet_formulas(client, world):
    response = await client.patch(
        f"/api/v1/projects/{world.project.id}",
        json={"name": "Formula"},
        headers={**world.admin.headers, "X-Request-Id": "-1-1"},
    )
    assert response.status_code == 200
    response = await client.get(f"{logs_url(world.project.id)}/export", headers=world.admin.headers)
    [row] = list(csv.DictReader(io.StringIO(response.text)))
    assert row["requestId"] == "'-1-1"


async def test_export_is_admin_and_above(client, world):
    url = f"{logs_url(world.project.id)}/export"
    for actor in (world.manager, world.member):
        assert (await client.get(url, headers=actor.headers)).status_code == 403
    assert (await client.get(url)).status_code == 401
    other = await make_world()
    assert (await client.get(url, headers=other.owner.headers)).status_code == 404
    response = await client.get(url, params={"format": "xml"}, headers=world.admin.headers)
    assert response.status_code == 400
    # Keys hold a manager's record permissions at most, so even audit:read cannot export.
    raw, _ = await create_api_key(world.project, ["audit:read"])
    response = await client.get(url, headers=key_headers(raw))
    assert response.status_code == 403 and response.json()["code"] == "FORBIDDEN"
