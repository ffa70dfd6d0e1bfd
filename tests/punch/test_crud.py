import asyncio

import pytest

from plumbline.kit import clock
from tests.factories import (
    audit_entries,
    create_api_key,
    create_project,
    key_headers,
    make_world,
)
from tests.punch.helpers import url


async def test_create_returns_the_item_with_a_number(client, world):
    response = await client.post(
        url(world.project),
        json={
            "title": "  Touch up paint in corridor  ",
            "location": "Level 2, corridor B",
            "trade": "Painting",
            "priority": "P1",
            "assigneeIds": [world.member.id],
            "dueDate": "2026-12-01T15:00:00Z",
            "notes": "Scuffs near door 204",
            "pageNumber": 3,
            "pin": {"x": 0.25, "y": 0.75},
            "status": "CLOSED",
        },
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    item = response.json()
    assert item["title"] == "Touch up paint in corridor"
    assert item["projectId"] == world.project.id
    assert item["status"] == "OPEN"  # new items always start OPEN
    assert isinstance(item["punchNumber"], int)
    assert item["priority"] == "P1"
    assert item["assigneeIds"] == [world.member.id]
    assert item["dueDate"] == "2026-12-01"
    assert item["pin"] == {"x": 0.25, "y": 0.75}
    assert item["pageNumber"] == 3
    assert item["referencePhotos"] == []
    assert item["closedAt"] is None
    assert item["createdBy"] == world.manager.id
    assert item["createdAt"].endswith("Z") and item["updatedAt"].endswith("Z")

    fetched = await client.get(url(world.project, f"/{item['id']}"), headers=world.member.headers)
    assert fetched.status_code == 200
    assert fetched.json() == item

    entries = await audit_entries(item["id"])
    assert [e.action for e in entries] == ["punch.created"]
    assert entries[0].actor_user_id == world.manager.id
    assert entries[0].changes["title"] == [None, "Touch up paint in corridor"]


async def test_defaults(client, world):
    item = (
        await client.post(url(world.project), json={"title": "Fix"}, headers=world.member.headers)
    ).json()
    assert item["priority"] == "P2"
    assert item["status"] == "OPEN"
    assert item["assigneeIds"] == []
    assert item["location"] is None and item["dueDate"] is None and item["pin"] is None


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"title": ""},
        {"title": "   "},
        {"title": "x" * 501},
        {"title": "ok", "priority": "HIGH"},
        {"title": "ok", "pin": {"x": 1.5, "y": 0}},
        {"title": "ok", "dueDate": "next tuesday"},
        {"title": "ok", "pageNumber": 0},
        {"title": "ok", "assigneeIds": "not-a-list"},
    ],
)
async def test_create_validation_writes_nothing(client, world, body):
    response = await client.post(url(world.project), json=body, headers=world.member.headers)
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_FAILED"
    listed = await client.get(url(world.project), headers=world.member.headers)
    assert listed.json() == []


async def test_assignees_must_see_the_project(client, world):
    other = await make_world()
    response = await client.post(
        url(world.project),
        json={"title": "x", "assigneeIds": [world.member.id, other.member.id]},
        headers=world.manager.headers,
    )
    assert response.status_code == 400
    assert response.json()["details"] == [
        {"field": "assigneeIds", "message": f"{other.member.id} cannot be assigned"}
    ]
    assert (await client.get(url(world.project), headers=world.manager.headers)).json() == []


async def test_file_version_must_belong_to_the_project(client, world):
    response = await client.post(
        url(world.project),
        json={"title": "x", "fileVersionId": "0" * 32},
        headers=world.manager.headers,
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "fileVersionId"


async def test_patch_applies_given_fields_and_audits_old_and_new(client, world):
    item = (
        await client.post(
            url(world.project),
            json={"title": "Old", "location": "Roof", "notes": "n"},
            headers=world.member.headers,
        )
    ).json()
    response = await client.patch(
        url(world.project, f"/{item['id']}"),
        json={"title": "New", "location": None, "priority": "P3"},
        headers=world.member.headers,
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["title"], body["location"], body["priority"], body["notes"]) == (
        "New",
        None,
        "P3",
        "n",
    )
    entries = await audit_entries(item["id"])
    assert entries[-1].action == "punch.updated"
    assert entries[-1].changes == {
        "title": ["Old", "New"],
        "location": ["Roof", None],
        "priority": ["P2", "P3"],
    }


@pytest.mark.parametrize(
    "body",
    [{"title": None}, {"status": None}, {"priority": "P9"}, {"status": "DONE"}, {"title": ""}],
)
async def test_patch_validation(client, world, body):
    item = (
        await client.post(url(world.project), json={"title": "A"}, headers=world.member.headers)
    ).json()
    response = await client.patch(
        url(world.project, f"/{item['id']}"), json=body, headers=world.member.headers
    )
    assert response.status_code == 400
    fetched = (
        await client.get(url(world.project, f"/{item['id']}"), headers=world.member.headers)
    ).json()
    assert fetched == item


async def test_delete_is_soft_and_members_delete_only_their_own(client, world):
    mine = (
        await client.post(url(world.project), json={"title": "M"}, headers=world.member.headers)
    ).json()
    theirs = (
        await client.post(url(world.project), json={"title": "T"}, headers=world.manager.headers)
    ).json()
    refused = await client.delete(
        url(world.project, f"/{theirs['id']}"), headers=world.member.headers
    )
    assert refused.status_code == 403
    ok = await client.delete(url(world.project, f"/{mine['id']}"), headers=world.member.headers)
    assert ok.status_code == 200 and ok.json() == {"ok": True}
    gone = await client.get(url(world.project, f"/{mine['id']}"), headers=world.member.headers)
    assert gone.status_code == 404
    again = await client.delete(url(world.project, f"/{mine['id']}"), headers=world.member.headers)
    assert again.status_code == 404
    listed = await client.get(url(world.project), headers=world.member.headers)
    assert [i["id"] for i in listed.json()] == [theirs["id"]]
    by_manager = await client.delete(
        url(world.project, f"/{theirs['id']}"), headers=world.manager.headers
    )
    assert by_manager.status_code == 200
    assert [e.action for e in await audit_entries(mine["id"])] == [
        "punch.created",
        "punch.deleted",
    ]


async def test_numbers_are_unique_under_concurrency_and_never_reused(client, world):
    async def create(n: int) -> int:
        response = await client.post(
            url(world.project), json={"title": f"Item {n}"}, headers=world.member.headers
        )
        assert response.status_code == 200, response.text
        return int(response.json()["punchNumber"])

    numbers = await asyncio.gather(*(create(n) for n in range(20)))
    assert sorted(numbers) == list(range(1, 21))

    listed = (await client.get(url(world.project), headers=world.member.headers)).json()
    last = next(i for i in listed if i["punchNumber"] == 20)
    await client.delete(url(world.project, f"/{last['id']}"), headers=world.member.headers)
    assert await create(21) == 21

    # Another project has its own sequence.
    other = await create_project(world.workspace, name="Tower B")
    response = await client.post(url(other), json={"title": "x"}, headers=world.member.headers)
    assert response.json()["punchNumber"] == 1


async def test_anonymous_is_401(client, world):
    assert (await client.get(url(world.project))).status_code == 401
    assert (await client.post(url(world.project), json={"title": "x"})).status_code == 401
    assert (await client.get(url(world.project, "/export.csv"))).status_code == 401
    response = await client.patch(
        url(world.project, "/bulk"), json={"ids": ["a"], "status": "OPEN"}
    )
    assert response.status_code == 401


async def test_other_workspace_is_404(client, world):
    other = await make_world()
    item = (
        await client.post(url(world.project), json={"title": "x"}, headers=world.member.headers)
    ).json()
    headers = other.owner.headers
    assert (await client.get(url(world.project), headers=headers)).status_code == 404
    assert (
        await client.post(url(world.project), json={"title": "x"}, headers=headers)
    ).status_code == 404
    for method in ("GET", "PATCH", "DELETE"):
        response = await client.request(
            method, url(world.project, f"/{item['id']}"), json={"title": "y"}, headers=headers
        )
        assert response.status_code == 404
    # The item id under the caller's own project is not found either.
    response = await client.get(url(other.project, f"/{item['id']}"), headers=headers)
    assert response.status_code == 404
    response = await client.patch(
        url(other.project, "/bulk"),
        json={"ids": [item["id"]], "status": "IN_PROGRESS"},
        headers=headers,
    )
    assert response.json()["results"] == [
        {"id": item["id"], "ok": False, "error": "Punch item not found", "code": "NOT_FOUND"}
    ]


async def test_api_key_scopes(client, world):
    raw, key = await create_api_key(world.project, ["punch:write", "punch:read"])
    created = await client.post(
        url(world.project), json={"title": "By key"}, headers=key_headers(raw)
    )
    assert created.status_code == 200
    entries = await audit_entries(created.json()["id"])
    assert entries[0].actor == "key" and entries[0].actor_key_id == key.id
    assert created.json()["createdBy"] is None

    read_only, _ = await create_api_key(world.project, ["punch:read"])
    refused = await client.post(
        url(world.project), json={"title": "x"}, headers=key_headers(read_only)
    )
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: punch:write"
    listed = await client.get(url(world.project), headers=key_headers(read_only))
    assert listed.status_code == 200 and len(listed.json()) == 1

    write_only, _ = await create_api_key(world.project, ["punch:write"])
    refused = await client.get(url(world.project), headers=key_headers(write_only))
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: punch:read"

    other_project = await create_project(world.workspace, name="Elsewhere")
    response = await client.get(url(other_project), headers=key_headers(raw))
    assert response.status_code == 403 and response.json()["code"] == "API_KEY_PROJECT"


async def test_disabled_module_is_403(client, world):
    project = await create_project(world.workspace, name="No punch", modules={"punch": False})
    response = await client.get(url(project), headers=world.member.headers)
    assert response.status_code == 403
    assert response.json()["error"] == "Punch is disabled for this project"


async def test_updated_at_moves_on_patch(client, world):
    from datetime import UTC, datetime

    clock.set_now(datetime(2026, 5, 1, 8, 0, tzinfo=UTC))
    item = (
        await client.post(url(world.project), json={"title": "A"}, headers=world.member.headers)
    ).json()
    clock.set_now(datetime(2026, 5, 2, 8, 0, tzinfo=UTC))
    body = (
        await client.patch(
            url(world.project, f"/{item['id']}"), json={"notes": "x"}, headers=world.member.headers
        )
    ).json()
    assert item["updatedAt"] == "2026-05-01T08:00:00.000Z"
    assert body["updatedAt"] == "2026-05-02T08:00:00.000Z"
    assert body["createdAt"] == "2026-05-01T08:00:00.000Z"
