import itertools

import pytest

from plumbline.punch.service import TRANSITIONS
from tests.factories import audit_entries
from tests.punch.helpers import url

STATUSES = ("OPEN", "IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED")
PATH = {
    "OPEN": [],
    "IN_PROGRESS": ["IN_PROGRESS"],
    "READY_FOR_REVIEW": ["IN_PROGRESS", "READY_FOR_REVIEW"],
    "CLOSED": ["IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED"],
}
ALLOWED = {
    ("OPEN", "IN_PROGRESS"),
    ("IN_PROGRESS", "READY_FOR_REVIEW"),
    ("READY_FOR_REVIEW", "IN_PROGRESS"),
    ("READY_FOR_REVIEW", "CLOSED"),
    ("CLOSED", "OPEN"),
}


async def item_in(client, world, status: str) -> dict:
    item = (
        await client.post(url(world.project), json={"title": "W"}, headers=world.manager.headers)
    ).json()
    for step in PATH[status]:
        response = await client.patch(
            url(world.project, f"/{item['id']}"),
            json={"status": step},
            headers=world.manager.headers,
        )
        assert response.status_code == 200, response.text
        item = response.json()
    assert item["status"] == status
    return item


def test_the_documented_edge_list_is_the_enforced_one():
    assert set(TRANSITIONS) == ALLOWED


@pytest.mark.parametrize("old,new", list(itertools.permutations(STATUSES, 2)))
async def test_every_transition(client, world, old, new):
    item = await item_in(client, world, old)
    response = await client.patch(
        url(world.project, f"/{item['id']}"), json={"status": new}, headers=world.manager.headers
    )
    fetched = (
        await client.get(url(world.project, f"/{item['id']}"), headers=world.manager.headers)
    ).json()
    if (old, new) in ALLOWED:
        assert response.status_code == 200, response.text
        assert fetched["status"] == new
        assert (fetched["closedAt"] is not None) == (new == "CLOSED")
    else:
        assert response.status_code == 409
        assert response.json()["code"] == "INVALID_TRANSITION"
        assert response.json()["from"] == old and response.json()["to"] == new
        assert fetched == item


async def test_setting_the_same_status_is_a_no_op(client, world):
    item = await item_in(client, world, "IN_PROGRESS")
    response = await client.patch(
        url(world.project, f"/{item['id']}"),
        json={"status": "IN_PROGRESS"},
        headers=world.member.headers,
    )
    assert response.status_code == 200 and response.json() == item


async def test_member_cannot_close_but_manager_can(client, world):
    item = await item_in(client, world, "READY_FOR_REVIEW")
    refused = await client.patch(
        url(world.project, f"/{item['id']}"),
        json={"status": "CLOSED"},
        headers=world.member.headers,
    )
    assert refused.status_code == 403
    assert refused.json()["code"] == "FORBIDDEN"
    closed = await client.patch(
        url(world.project, f"/{item['id']}"),
        json={"status": "CLOSED"},
        headers=world.manager.headers,
    )
    assert closed.status_code == 200
    assert closed.json()["status"] == "CLOSED" and closed.json()["closedAt"]
    assert (await audit_entries(item["id"]))[-1].action == "punch.closed"


async def test_member_skipping_to_closed_is_an_invalid_transition(client, world):
    item = await item_in(client, world, "OPEN")
    response = await client.patch(
        url(world.project, f"/{item['id']}"),
        json={"status": "CLOSED"},
        headers=world.member.headers,
    )
    assert response.status_code == 409


async def test_only_a_manager_reopens(client, world):
    item = await item_in(client, world, "CLOSED")
    refused = await client.patch(
        url(world.project, f"/{item['id']}"), json={"status": "OPEN"}, headers=world.member.headers
    )
    assert refused.status_code == 403
    reopened = await client.patch(
        url(world.project, f"/{item['id']}"), json={"status": "OPEN"}, headers=world.admin.headers
    )
    assert reopened.status_code == 200
    assert reopened.json()["status"] == "OPEN" and reopened.json()["closedAt"] is None
    entry = (await audit_entries(item["id"]))[-1]
    assert entry.action == "punch.reopened"
    assert entry.changes["status"] == ["CLOSED", "OPEN"]
    assert entry.changes["closedAt"][0] is not None and entry.changes["closedAt"][1] is None


async def test_refused_transition_writes_nothing_else(client, world):
    item = await item_in(client, world, "OPEN")
    response = await client.patch(
        url(world.project, f"/{item['id']}"),
        json={"status": "READY_FOR_REVIEW", "title": "Changed"},
        headers=world.member.headers,
    )
    assert response.status_code == 409
    fetched = (
        await client.get(url(world.project, f"/{item['id']}"), headers=world.member.headers)
    ).json()
    assert fetched["title"] == "W"
    assert [e.action for e in await audit_entries(item["id"])] == ["punch.created"]


async def test_bulk_applies_each_items_rules(client, world):
    open_item = await item_in(client, world, "OPEN")
    review = await item_in(client, world, "READY_FOR_REVIEW")
    closed = await item_in(client, world, "CLOSED")
    response = await client.patch(
        url(world.project, "/bulk"),
        json={
            "ids": [open_item["id"], review["id"], closed["id"], "missing", open_item["id"]],
            "status": "IN_PROGRESS",
        },
        headers=world.member.headers,
    )
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["id"] for r in results] == [open_item["id"], review["id"], closed["id"], "missing"]
    assert results[0] == {"id": open_item["id"], "ok": True}
    assert results[1] == {"id": review["id"], "ok": True}
    assert results[2]["ok"] is False and results[2]["code"] == "INVALID_TRANSITION"
    assert results[2]["error"] == "A punch item cannot go from CLOSED to IN_PROGRESS"
    assert results[3] == {
        "id": "missing",
        "ok": False,
        "error": "Punch item not found",
        "code": "NOT_FOUND",
    }
    statuses = {
        i["id"]: i["status"]
        for i in (await client.get(url(world.project), headers=world.member.headers)).json()
    }
    assert statuses[open_item["id"]] == "IN_PROGRESS"
    assert statuses[review["id"]] == "IN_PROGRESS"
    assert statuses[closed["id"]] == "CLOSED"


async def test_bulk_close_by_member_and_manager(client, world):
    review = await item_in(client, world, "READY_FOR_REVIEW")
    open_item = await item_in(client, world, "OPEN")
    body = {"ids": [review["id"], open_item["id"]], "status": "CLOSED"}
    by_member = (
        await client.patch(url(world.project, "/bulk"), json=body, headers=world.member.headers)
    ).json()["results"]
    assert [(r["ok"], r.get("code")) for r in by_member] == [
        (False, "FORBIDDEN"),
        (False, "INVALID_TRANSITION"),
    ]
    by_manager = (
        await client.patch(url(world.project, "/bulk"), json=body, headers=world.manager.headers)
    ).json()["results"]
    assert [(r["ok"], r.get("code")) for r in by_manager] == [
        (True, None),
        (False, "INVALID_TRANSITION"),
    ]


async def test_bulk_assign(client, world):
    a = await item_in(client, world, "OPEN")
    b = await item_in(client, world, "CLOSED")
    response = await client.patch(
        url(world.project, "/bulk"),
        json={"ids": [a["id"], b["id"]], "assigneeIds": [world.member.id]},
        headers=world.manager.headers,
    )
    assert [r["ok"] for r in response.json()["results"]] == [True, True]
    listed = (await client.get(url(world.project), headers=world.manager.headers)).json()
    assert all(i["assigneeIds"] == [world.member.id] for i in listed)


@pytest.mark.parametrize(
    "body",
    [
        {"ids": [], "status": "OPEN"},
        {"ids": [f"id{n}" for n in range(201)], "status": "OPEN"},
        {"ids": ["a"]},
        {"ids": ["a"], "status": "DONE"},
        {"status": "OPEN"},
    ],
)
async def test_bulk_validation(client, world, body):
    response = await client.patch(
        url(world.project, "/bulk"), json=body, headers=world.member.headers
    )
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_FAILED"


async def test_bulk_with_an_unassignable_user_writes_nothing(client, world):
    item = await item_in(client, world, "OPEN")
    response = await client.patch(
        url(world.project, "/bulk"),
        json={"ids": [item["id"]], "status": "IN_PROGRESS", "assigneeIds": ["nobody"]},
        headers=world.manager.headers,
    )
    assert response.status_code == 400
    fetched = (
        await client.get(url(world.project, f"/{item['id']}"), headers=world.manager.headers)
    ).json()
    assert fetched == item


async def test_two_hundred_ids_are_accepted(client, world):
    item = await item_in(client, world, "OPEN")
    ids = [item["id"]] + [f"missing-{n}" for n in range(199)]
    response = await client.patch(
        url(world.project, "/bulk"),
        json={"ids": ids, "status": "IN_PROGRESS"},
        headers=world.member.headers,
    )
    results = response.json()["results"]
    assert len(results) == 200 and results[0]["ok"] is True
    assert sum(r["ok"] for r in results) == 1
