"""POST/GET/DELETE /projects/{p}/rfi: fields, numbering, validation, keys, tenancy, modules."""

from __future__ import annotations

import asyncio
import re

import httpx

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import File, FileVersion
from tests.factories import (
    World,
    add_member,
    audit_entries,
    create_api_key,
    create_project,
    create_user,
    external,
    key_headers,
    make_world,
    set_project,
)
from tests.rfi.helpers import create_rfi, rfi_url

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
FIELDS = {
    "id",
    "projectId",
    "rfiNumber",
    "title",
    "question",
    "status",
    "priority",
    "dueDate",
    "assigneeIds",
    "managerId",
    "issueIds",
    "fileVersionId",
    "pageNumber",
    "pin",
    "officialResponse",
    "answeredAt",
    "answeredBy",
    "closedAt",
    "ballInCourt",
    "attachments",
    "createdBy",
    "createdAt",
    "updatedAt",
}


async def _file_version(world: World, project_id: str | None = None) -> str:
    async with database.sessionmaker() as db:
        now = clock.now()
        project = project_id or world.project.id
        file = File(
            project_id=project,
            workspace_id=world.workspace.id,
            name="S-201.pdf",
            normalized_name="s-201.pdf",
            created_at=now,
            updated_at=now,
        )
        db.add(file)
        await db.flush()
        version = FileVersion(
            file_id=file.id,
            project_id=project,
            workspace_id=world.workspace.id,
            version=1,
            storage_key="k",
            size_bytes=1,
            content_type="application/pdf",
            created_at=now,
        )
        db.add(version)
        await db.commit()
        return version.id


async def test_create_minimal_rfi_has_the_spec_fields_and_defaults(
    client: httpx.AsyncClient, world: World
) -> None:
    response = await client.post(
        rfi_url(world.project.id), json={"title": "Slab edge detail"}, headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    rfi = response.json()
    assert set(rfi) == FIELDS
    assert isinstance(rfi["id"], str) and rfi["projectId"] == world.project.id
    assert rfi["title"] == "Slab edge detail" and rfi["status"] == "OPEN"
    assert isinstance(rfi["rfiNumber"], int) and rfi["rfiNumber"] >= 1
    assert rfi["priority"] == "MEDIUM"
    assert rfi["managerId"] == world.member.id == rfi["createdBy"]
    assert rfi["assigneeIds"] == [] and rfi["issueIds"] == []
    assert rfi["ballInCourt"] == [world.member.id]
    assert ISO.match(rfi["createdAt"]) and ISO.match(rfi["updatedAt"])
    assert rfi["officialResponse"] is None and rfi["answeredAt"] is None

    read = await client.get(rfi_url(world.project.id, rfi["id"]), headers=world.owner.headers)
    assert read.status_code == 200 and read.json() == rfi

    [entry] = [e for e in await audit_entries(rfi["id"]) if e.action == "rfi.created"]
    assert entry.actor_user_id == world.member.id
    assert entry.changes["title"] == [None, "Slab edge detail"]
    assert entry.changes["status"] == [None, "OPEN"]


async def test_create_with_every_field(client: httpx.AsyncClient, world: World) -> None:
    version_id = await _file_version(world)
    issue = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": "Crack in slab"},
        headers=world.manager.headers,
    )
    assert issue.status_code == 200, issue.text
    rfi = await create_rfi(
        client,
        world.project.id,
        world.member.headers,
        title="  Rebar lap length  ",
        question="What lap length applies at the transfer beam?",
        priority="HIGH",
        dueDate="2026-12-01T18:30:00Z",
        assigneeIds=[world.admin.id, world.owner.id, world.admin.id],
        managerId=world.manager.id,
        issueIds=[issue.json()["id"]],
        fileVersionId=version_id,
        pageNumber=3,
        pin={"x": 0.25, "y": 1},
    )
    assert rfi["title"] == "Rebar lap length"
    assert rfi["question"] == "What lap length applies at the transfer beam?"
    assert rfi["priority"] == "HIGH" and rfi["dueDate"] == "2026-12-01"
    assert rfi["assigneeIds"] == [world.admin.id, world.owner.id]
    assert rfi["managerId"] == world.manager.id and rfi["createdBy"] == world.member.id
    assert rfi["ballInCourt"] == [world.manager.id]
    assert rfi["issueIds"] == [issue.json()["id"]]
    assert rfi["fileVersionId"] == version_id and rfi["pageNumber"] == 3
    assert rfi["pin"] == {"x": 0.25, "y": 1}
    read = await client.get(rfi_url(world.project.id, rfi["id"]), headers=world.member.headers)
    assert read.json() == rfi


async def test_numbers_are_sequential_and_never_reused_after_delete(
    client: httpx.AsyncClient,
) -> None:
    world = await make_world()
    first = await create_rfi(client, world.project.id, world.member.headers)
    second = await create_rfi(client, world.project.id, world.member.headers)
    assert (first["rfiNumber"], second["rfiNumber"]) == (1, 2)
    deleted = await client.delete(
        rfi_url(world.project.id, second["id"]), headers=world.member.headers
    )
    assert deleted.status_code == 200 and deleted.json() == {"ok": True}
    third = await create_rfi(client, world.project.id, world.member.headers)
    assert third["rfiNumber"] == 3
    # Another project counts on its own.
    other = await create_project(world.workspace, name="Tower B")
    assert (await create_rfi(client, other.id, world.member.headers))["rfiNumber"] == 1


async def test_twenty_concurrent_creates_get_distinct_numbers(client: httpx.AsyncClient) -> None:
    world = await make_world()

    async def one(i: int) -> httpx.Response:
        return await client.post(
            rfi_url(world.project.id), json={"title": f"RFI {i}"}, headers=world.member.headers
        )

    responses = await asyncio.gather(*(one(i) for i in range(20)))
    assert [r.status_code for r in responses] == [200] * 20
    numbers = sorted(r.json()["rfiNumber"] for r in responses)
    assert numbers == list(range(1, 21))


async def test_validation_errors_are_400_and_write_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    other_world = await make_world()
    stranger = await create_user()
    restricted = await create_user()
    await add_member(world.workspace, restricted, "MEMBER", project_ids=[])
    client_user = await external(world, "CLIENT")
    other_version = await _file_version(other_world, other_world.project.id)
    bad = [
        {},
        {"title": ""},
        {"title": "   "},
        {"title": "x" * 301},
        {"title": "ok", "priority": "URGENT"},
        {"title": "ok", "dueDate": "next week"},
        {"title": "ok", "pin": {"x": 1.5, "y": 0}},
        {"title": "ok", "pageNumber": 0},
        {"title": "ok", "assigneeIds": [stranger.id]},
        {"title": "ok", "assigneeIds": [other_world.member.id]},
        {"title": "ok", "assigneeIds": [restricted.id]},
        {"title": "ok", "assigneeIds": [client_user.id]},
        {"title": "ok", "managerId": client_user.id},
        {"title": "ok", "managerId": stranger.id},
        {"title": "ok", "fileVersionId": other_version},
        {"title": "ok", "issueIds": ["nope"]},
        {"title": "ok", "assigneeIds": "not-a-list"},
    ]
    before = await client.get(rfi_url(world.project.id), headers=world.owner.headers)
    for payload in bad:
        response = await client.post(
            rfi_url(world.project.id), json=payload, headers=world.member.headers
        )
        assert response.status_code == 400, (payload, response.text)
        body = response.json()
        assert body["code"] == "VALIDATION_FAILED" and body["error"], payload
    after = await client.get(rfi_url(world.project.id), headers=world.owner.headers)
    assert after.json() == before.json()
    # The refused creates did not consume numbers.
    assert (await create_rfi(client, world.project.id, world.member.headers))["rfiNumber"] == 1


async def test_issue_of_another_project_cannot_be_linked(
    client: httpx.AsyncClient, world: World
) -> None:
    other = await create_project(world.workspace, name="Annex")
    issue = await client.post(
        f"/api/v1/projects/{other.id}/issues", json={"title": "x"}, headers=world.manager.headers
    )
    assert issue.status_code == 200
    response = await client.post(
        rfi_url(world.project.id),
        json={"title": "ok", "issueIds": [issue.json()["id"]]},
        headers=world.member.headers,
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "issueIds"


async def test_anonymous_is_401(client: httpx.AsyncClient, world: World) -> None:
    assert (await client.get(rfi_url(world.project.id))).status_code == 401
    response = await client.post(rfi_url(world.project.id), json={"title": "x"})
    assert response.status_code == 401 and response.json()["code"] == "UNAUTHORIZED"


async def test_api_key_scopes(client: httpx.AsyncClient, world: World) -> None:
    raw, key = await create_api_key(world.project, ["rfi:read", "rfi:write"])
    created = await client.post(
        rfi_url(world.project.id),
        json={"title": "From the integration", "managerId": world.manager.id},
        headers=key_headers(raw),
    )
    assert created.status_code == 200, created.text
    rfi = created.json()
    assert rfi["createdBy"] is None and rfi["managerId"] == world.manager.id
    [entry] = [e for e in await audit_entries(rfi["id"]) if e.action == "rfi.created"]
    assert entry.actor_key_id == key.id and entry.actor == "key"

    read_only, _ = await create_api_key(world.project, ["rfi:read"])
    refused = await client.post(
        rfi_url(world.project.id), json={"title": "x"}, headers=key_headers(read_only)
    )
    assert refused.status_code == 403
    assert refused.json() == {"error": "API key missing scope: rfi:write", "code": "API_KEY_SCOPE"}
    listed = await client.get(rfi_url(world.project.id), headers=key_headers(read_only))
    assert listed.status_code == 200 and rfi["id"] in [r["id"] for r in listed.json()]

    issues_only, _ = await create_api_key(world.project, ["issues:read"])
    response = await client.get(rfi_url(world.project.id), headers=key_headers(issues_only))
    assert response.status_code == 403
    assert response.json()["error"] == "API key missing scope: rfi:read"

    other = await create_project(world.workspace, name="Other")
    other_key, _ = await create_api_key(other, ["rfi:read", "rfi:write"])
    response = await client.get(rfi_url(world.project.id), headers=key_headers(other_key))
    assert response.status_code == 403 and response.json()["code"] == "API_KEY_PROJECT"


async def test_other_workspace_is_404(client: httpx.AsyncClient, world: World) -> None:
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    other = await make_world()
    for response in (
        await client.get(rfi_url(world.project.id), headers=other.owner.headers),
        await client.post(
            rfi_url(world.project.id), json={"title": "x"}, headers=other.owner.headers
        ),
        await client.get(rfi_url(world.project.id, rfi["id"]), headers=other.owner.headers),
        # The RFI id under the caller's own project is not found either.
        await client.get(rfi_url(other.project.id, rfi["id"]), headers=other.owner.headers),
        await client.patch(
            rfi_url(other.project.id, rfi["id"]), json={"title": "x"}, headers=other.owner.headers
        ),
        await client.delete(rfi_url(other.project.id, rfi["id"]), headers=other.owner.headers),
    ):
        assert response.status_code == 404, response.text
        assert response.json()["code"] == "NOT_FOUND"


async def test_module_disabled_is_403(client: httpx.AsyncClient) -> None:
    world = await make_world()
    await set_project(world.project.id, modules={"rfi": False})
    for response in (
        await client.get(rfi_url(world.project.id), headers=world.owner.headers),
        await client.post(
            rfi_url(world.project.id), json={"title": "x"}, headers=world.owner.headers
        ),
    ):
        assert response.status_code == 403
        assert response.json()["error"] == "RFIs is disabled for this project"


async def test_externals_cannot_create(client: httpx.AsyncClient, world: World) -> None:
    for role in ("CONTRACTOR", "SUBCONTRACTOR", "CLIENT"):
        actor = await external(world, role)
        response = await client.post(
            rfi_url(world.project.id), json={"title": "x"}, headers=actor.headers
        )
        assert response.status_code == 403, role


async def test_read_unknown_and_deleted_rfi_is_404(client: httpx.AsyncClient, world: World) -> None:
    assert (
        await client.get(rfi_url(world.project.id, "nope"), headers=world.member.headers)
    ).status_code == 404
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    await client.delete(rfi_url(world.project.id, rfi["id"]), headers=world.manager.headers)
    response = await client.get(rfi_url(world.project.id, rfi["id"]), headers=world.member.headers)
    assert response.status_code == 404
    listed = await client.get(rfi_url(world.project.id), headers=world.member.headers)
    assert rfi["id"] not in [r["id"] for r in listed.json()]


async def test_delete_rules(client: httpx.AsyncClient, world: World) -> None:
    mine = await create_rfi(client, world.project.id, world.member.headers)
    theirs = await create_rfi(client, world.project.id, world.admin.headers)
    refused = await client.delete(
        rfi_url(world.project.id, theirs["id"]), headers=world.member.headers
    )
    assert refused.status_code == 403
    contractor = await external(world, "CONTRACTOR")
    await client.patch(
        rfi_url(world.project.id, mine["id"]),
        json={"assigneeIds": [contractor.id]},
        headers=world.member.headers,
    )
    response = await client.delete(
        rfi_url(world.project.id, mine["id"]), headers=contractor.headers
    )
    assert response.status_code == 403
    ok = await client.delete(rfi_url(world.project.id, mine["id"]), headers=world.member.headers)
    assert ok.status_code == 200
    ok = await client.delete(rfi_url(world.project.id, theirs["id"]), headers=world.manager.headers)
    assert ok.status_code == 200 and ok.json() == {"ok": True}
    assert [e.action for e in await audit_entries(theirs["id"])][-1] == "rfi.deleted"
    again = await client.delete(
        rfi_url(world.project.id, theirs["id"]), headers=world.manager.headers
    )
    assert again.status_code == 404
