"""Folders: create, list, rename/move without cycles, delete (recursive), standard trees."""

from __future__ import annotations

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit.storage import get_storage
from plumbline.models import File
from tests.factories import QueryCounter, create_api_key, key_headers, make_world
from tests.file.helpers import PDF, storage_used, upload, version_row


def _url(world, suffix=""):
    return f"/api/v1/projects/{world.project.id}/folders{suffix}"


async def _create(client, world, name, parent_id=None, actor=None):
    response = await client.post(
        _url(world),
        json={"name": name, "parentId": parent_id},
        headers=(actor or world.member).headers,
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_create_and_list_folders_in_fixed_queries(client):
    world = await make_world()
    drawings = await _create(client, world, "Drawings")
    assert drawings["name"] == "Drawings" and drawings["parentId"] is None
    assert drawings["projectId"] == world.project.id and drawings["createdBy"] == world.member.id
    with QueryCounter() as one:
        listed = await client.get(_url(world), headers=world.member.headers)
    assert [f["id"] for f in listed.json()] == [drawings["id"]]
    for name in ("Arch", "Struct", "MEP"):
        await _create(client, world, name, drawings["id"])
    with QueryCounter() as many:
        listed = await client.get(_url(world), headers=world.member.headers)
    assert len(listed.json()) == 4 and many.count == one.count
    children = await client.get(
        _url(world, f"?parentId={drawings['id']}"), headers=world.member.headers
    )
    assert sorted(f["name"] for f in children.json()) == ["Arch", "MEP", "Struct"]
    top = await client.get(_url(world, "?parentId=root"), headers=world.member.headers)
    assert [f["id"] for f in top.json()] == [drawings["id"]]


async def test_sibling_names_are_unique_and_parents_must_exist(client, world):
    await _create(client, world, "Photos")
    clash = await client.post(_url(world), json={"name": "photos"}, headers=world.member.headers)
    assert clash.status_code == 409 and clash.json()["code"] == "NAME_TAKEN"
    orphan = await client.post(
        _url(world), json={"name": "X", "parentId": "nope"}, headers=world.member.headers
    )
    assert orphan.status_code == 400  # an id in a body: 400 naming it (issue 24)
    assert orphan.json()["details"][0]["field"] == "parentId"
    invalid = await client.post(_url(world), json={"name": "a/b"}, headers=world.member.headers)
    assert invalid.status_code == 400
    blank = await client.post(_url(world), json={"name": "  "}, headers=world.member.headers)
    assert blank.status_code == 400


async def test_move_refuses_cycles_and_needs_a_manager(client, world):
    a = await _create(client, world, "A")
    b = await _create(client, world, "B", a["id"])
    c = await _create(client, world, "C", b["id"])
    url = _url(world, f"/{a['id']}")
    by_member = await client.patch(url, json={"parentId": c["id"]}, headers=world.member.headers)
    assert by_member.status_code == 403
    cycle = await client.patch(url, json={"parentId": c["id"]}, headers=world.manager.headers)
    assert cycle.status_code == 409 and cycle.json()["code"] == "FOLDER_CYCLE"
    itself = await client.patch(url, json={"parentId": a["id"]}, headers=world.manager.headers)
    assert itself.status_code == 409
    moved = await client.patch(
        _url(world, f"/{c['id']}"), json={"parentId": None}, headers=world.manager.headers
    )
    assert moved.status_code == 200 and moved.json()["parentId"] is None
    renamed = await client.patch(url, json={"name": "A2"}, headers=world.member.headers)
    assert renamed.status_code == 200 and renamed.json()["name"] == "A2"
    other = await _create(client, world, "Managers only", actor=world.manager)
    not_creator = await client.patch(
        _url(world, f"/{other['id']}"), json={"name": "Mine"}, headers=world.member.headers
    )
    assert not_creator.status_code == 403
    unknown = await client.patch(
        _url(world, "/nope"), json={"name": "x"}, headers=world.manager.headers
    )
    assert unknown.status_code == 404


async def test_delete_empty_or_recursive(client, world):
    ws = world.workspace.id
    top = await _create(client, world, "Old")
    sub = await _create(client, world, "Sub", top["id"])
    f1 = await upload(
        client, world.member.headers, world.project.id, "a.pdf", PDF, folderId=sub["id"]
    )
    f2 = await upload(
        client, world.member.headers, world.project.id, "b.pdf", PDF, folderId=top["id"]
    )
    used = await storage_used(ws)
    by_member = await client.delete(_url(world, f"/{top['id']}"), headers=world.member.headers)
    assert by_member.status_code == 403
    not_empty = await client.delete(_url(world, f"/{top['id']}"), headers=world.manager.headers)
    assert not_empty.status_code == 409 and not_empty.json()["code"] == "FOLDER_NOT_EMPTY"
    gone = await client.delete(
        _url(world, f"/{top['id']}?recursive=true"), headers=world.manager.headers
    )
    assert gone.status_code == 200 and gone.json() == {"ok": True}
    assert await storage_used(ws) == used - 2 * len(PDF)
    async with database.sessionmaker() as db:
        rows = (await db.execute(select(File).where(File.id.in_([f1["id"], f2["id"]])))).scalars()
        assert all(r.deleted_at is not None for r in rows)
    key = (await version_row(f1["fileVersionId"])).storage_key
    assert await get_storage().head(key) is None
    listed = await client.get(_url(world), headers=world.member.headers)
    assert not {top["id"], sub["id"]} & {f["id"] for f in listed.json()}
    empty = await _create(client, world, "Empty")
    assert (
        await client.delete(_url(world, f"/{empty['id']}"), headers=world.manager.headers)
    ).status_code == 200
    assert (
        await client.delete(_url(world, f"/{empty['id']}"), headers=world.manager.headers)
    ).status_code == 404


async def test_apply_structure_creates_a_tree_and_skips_existing(client, world):
    await _create(client, world, "drawings")
    response = await client.post(
        _url(world, "/apply-structure"),
        json={"template": "construction-standard"},
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    names = {f["name"] for f in body["created"]}
    assert "Drawings" not in names and {"Architectural", "MEP", "Contracts", "RFIs"} <= names
    assert body["skipped"] == 1
    again = await client.post(
        _url(world, "/apply-structure"),
        json={"template": "construction-standard"},
        headers=world.manager.headers,
    )
    assert again.json()["created"] == [] and again.json()["skipped"] == 11
    listed = (await client.get(_url(world), headers=world.member.headers)).json()
    drawings = next(f for f in listed if f["name"] == "drawings")
    assert sorted(f["name"] for f in listed if f["parentId"] == drawings["id"]) == [
        "Architectural",
        "Civil",
        "MEP",
        "Structural",
    ]
    fm = await client.post(
        _url(world, "/apply-structure"),
        json={"template": "fm-handover"},
        headers=world.manager.headers,
    )
    assert "Warranties" in {f["name"] for f in fm.json()["created"]}
    design = await client.post(
        _url(world, "/apply-structure"),
        json={"template": "design-phase", "parentId": drawings["id"]},
        headers=world.manager.headers,
    )
    top_level = {f["name"] for f in design.json()["created"] if f["parentId"] == drawings["id"]}
    assert top_level == {
        "Concept",
        "Schematic Design",
        "Design Development",
        "Construction Documents",
        "Consultants",
        "Meeting Minutes",
        "Client Briefs",
        "Renderings",
    }
    member = await client.post(
        _url(world, "/apply-structure"),
        json={"template": "fm-handover"},
        headers=world.member.headers,
    )
    assert member.status_code == 403
    unknown = await client.post(
        _url(world, "/apply-structure"), json={"template": "nope"}, headers=world.manager.headers
    )
    assert unknown.status_code == 400


async def test_folders_with_api_keys_and_other_tenants(client, world):
    writer, _ = await create_api_key(world.project, ["files:write"])
    made = await client.post(_url(world), json={"name": "From API"}, headers=key_headers(writer))
    assert made.status_code == 200 and made.json()["createdBy"] is None
    reader, _ = await create_api_key(world.project, ["files:read"])
    refused = await client.post(_url(world), json={"name": "No"}, headers=key_headers(reader))
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: files:write"
    stranger = await make_world()
    foreign = await client.get(_url(world), headers=stranger.owner.headers)
    assert foreign.status_code == 404
    other_project = await client.patch(
        f"/api/v1/projects/{stranger.project.id}/folders/{made.json()['id']}",
        json={"name": "x"},
        headers=stranger.owner.headers,
    )
    assert other_project.status_code == 404
    assert (await client.get(_url(world))).status_code == 401
