"""Inspection runs: start, save results, complete once (follow-up work orders, next due date),
read-only once completed, bad input, list queries."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from plumbline.kit import clock
from tests.factories import QueryCounter, World, audit_entries, om_world
from tests.om_inspections.helpers import (
    FIRE_WALK,
    add_photo,
    asset_id,
    create_run,
    create_template,
    png,
    runs_url,
    templates_url,
)

ALL_PASS = [
    {"itemId": "exits", "outcome": "PASS"},
    {"itemId": "ext", "outcome": "PASS"},
    {"itemId": "panel", "outcome": "DONE"},
]
ONE_FAIL = [
    {"itemId": "exits", "outcome": "FAIL", "note": "Stairwell B blocked by pallets"},
    {"itemId": "ext", "outcome": "PASS"},
    {"itemId": "panel", "outcome": "DONE"},
    {"itemId": "temp", "value": 18.5},
    {"itemId": "notes", "value": "Panel log checked"},
]


async def _work_orders(client: httpx.AsyncClient, world: World) -> list[dict[str, Any]]:
    response = await client.get(
        f"/api/v1/projects/{world.project.id}/issues",
        params={"issueKind": "WORK_ORDER"},
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()
    return found


async def test_start_save_and_complete_with_a_failed_item(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    asset = await asset_id(client, world)
    clock.set_now(datetime(2026, 1, 20, 9, 0, tzinfo=UTC))
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"], asset_id=asset)
    assert run["status"] == "DRAFT"
    assert run["templateId"] == template["id"]
    assert run["templateName"] == FIRE_WALK["name"]
    assert run["assetId"] == asset
    assert run["items"] == template["items"]
    assert run["results"] == []
    assert run["followUpWorkOrders"] == []
    assert run["photos"] == []
    url = f"{runs_url(world.project.id)}/{run['id']}"

    saved = await client.patch(url, json={"results": ONE_FAIL[:2]}, headers=world.member.headers)
    assert saved.status_code == 200, saved.text
    more = await client.patch(url, json={"results": ONE_FAIL[2:]}, headers=world.member.headers)
    assert [r["itemId"] for r in more.json()["results"]] == [
        "exits",
        "ext",
        "panel",
        "temp",
        "notes",
    ]
    assert more.json()["results"][0] == {
        "itemId": "exits",
        "outcome": "FAIL",
        "value": None,
        "note": "Stairwell B blocked by pallets",
        "photoUploadId": None,
    }
    assert more.json()["results"][3]["value"] == 18.5

    clock.set_now(datetime(2026, 1, 30, 15, 30, tzinfo=UTC))
    done = await client.post(
        f"{url}/complete", json={"signedBy": "Sam Safety"}, headers=world.member.headers
    )
    assert done.status_code == 200, done.text
    completed = done.json()
    assert completed["status"] == "COMPLETED"
    assert completed["signedBy"] == "Sam Safety"
    assert completed["completedAt"] == "2026-01-30T15:30:00.000Z"
    assert completed["completedBy"] == world.member.user.id
    assert completed["failedCount"] == 1
    [follow_up] = completed["followUpWorkOrders"]

    [order] = await _work_orders(client, world)
    assert order["id"] == follow_up["id"]
    assert order["number"] == follow_up["number"]
    assert order["workOrderType"] == "INSPECTION_FOLLOWUP"
    assert order["assetId"] == asset
    assert order["title"] == "Inspection follow-up: Exit routes clear"
    assert "Stairwell B blocked by pallets" in order["description"]

    # completed early (before its due 31 Jan): the next walk is the next month's, at month end
    got = await client.get(
        f"{templates_url(world.project.id)}/{template['id']}", headers=world.member.headers
    )
    assert got.json()["nextDueAt"] == "2026-02-28T09:00:00.000Z"
    actions = [e.action for e in await audit_entries(run["id"])]
    assert actions == [
        "inspection_run.created",
        "inspection_run.updated",
        "inspection_run.updated",
        "inspection_run.completed",
    ]


async def test_month_end_anchor_and_missed_periods(client: httpx.AsyncClient, world: World) -> None:
    """31 Jan -> 28 Feb -> 31 Mar (the anchor's day comes back); a walk months late makes the
    first due date after it the next, not every missed one."""
    world = await om_world()
    template = await create_template(client, world)
    turl = f"{templates_url(world.project.id)}/{template['id']}"
    dues = []
    for when in (
        datetime(2026, 1, 31, 10, 0, tzinfo=UTC),
        datetime(2026, 2, 27, 10, 0, tzinfo=UTC),
        datetime(2026, 6, 15, 10, 0, tzinfo=UTC),
    ):
        clock.set_now(when)
        run = await create_run(client, world, template["id"])
        url = f"{runs_url(world.project.id)}/{run['id']}"
        await client.patch(url, json={"results": ALL_PASS}, headers=world.member.headers)
        done = await client.post(f"{url}/complete", headers=world.member.headers)
        assert done.status_code == 200, done.text
        dues.append((await client.get(turl, headers=world.member.headers)).json()["nextDueAt"])
    assert dues == [
        "2026-02-28T09:00:00.000Z",
        "2026-03-31T09:00:00.000Z",
        "2026-06-30T09:00:00.000Z",
    ]


async def test_leap_year_february(client: httpx.AsyncClient, world: World) -> None:
    world = await om_world()
    clock.set_now(datetime(2024, 1, 31, 12, 0, tzinfo=UTC))
    template = await create_template(
        client, world, {**FIRE_WALK, "nextDueAt": "2024-01-31T09:00:00Z"}
    )
    run = await create_run(client, world, template["id"])
    url = f"{runs_url(world.project.id)}/{run['id']}"
    await client.patch(url, json={"results": ALL_PASS}, headers=world.member.headers)
    await client.post(f"{url}/complete", headers=world.member.headers)
    got = await client.get(
        f"{templates_url(world.project.id)}/{template['id']}", headers=world.member.headers
    )
    assert got.json()["nextDueAt"] == "2024-02-29T09:00:00.000Z"


async def test_required_items_unanswered_are_listed(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"])
    url = f"{runs_url(world.project.id)}/{run['id']}"
    await client.patch(
        url,
        json={
            "results": [{"itemId": "exits", "outcome": "PASS"}, {"itemId": "ext", "note": "later"}]
        },
        headers=world.member.headers,
    )
    response = await client.post(f"{url}/complete", headers=world.member.headers)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED"
    assert body["missingItemIds"] == ["ext", "panel"]
    assert "Extinguisher pressure in green" in body["error"]
    assert "Alarm panel shows no faults" in body["error"]
    assert [d["field"] for d in body["details"]] == ["items.ext", "items.panel"]
    got = await client.get(url, headers=world.member.headers)
    assert got.json()["status"] == "DRAFT"
    assert got.json()["completedAt"] is None


@pytest.mark.parametrize(
    ("result", "field"),
    [
        ({"itemId": "nope", "outcome": "PASS"}, "results[1].itemId"),
        ({"itemId": "panel", "outcome": "FAIL"}, "results[1].outcome"),
        ({"itemId": "temp", "value": "warm"}, "results[1].value"),
        ({"itemId": "notes", "value": 12}, "results[1].value"),
        ({"itemId": "exits", "outcome": "BROKEN"}, "results.1.outcome"),
        ({"itemId": "exits", "photoUploadId": "0" * 32}, "results[1].photoUploadId"),
    ],
)
async def test_bad_results_are_400_and_nothing_is_saved(
    client: httpx.AsyncClient, world: World, result: dict[str, Any], field: str
) -> None:
    world = await om_world()
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"])
    url = f"{runs_url(world.project.id)}/{run['id']}"
    body = {"results": [{"itemId": "ext", "outcome": "PASS"}, result]}
    response = await client.patch(url, json=body, headers=world.member.headers)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert any(d["field"] == field for d in response.json()["details"]), response.json()
    if field == "results[1].itemId":
        assert response.json()["unknownItemIds"] == ["nope"]
    assert (await client.get(url, headers=world.member.headers)).json()["results"] == []


async def test_completed_run_is_read_only_and_completing_again_changes_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"])
    url = f"{runs_url(world.project.id)}/{run['id']}"
    await client.patch(url, json={"results": ONE_FAIL}, headers=world.member.headers)
    first = await client.post(f"{url}/complete", headers=world.member.headers)
    assert first.status_code == 200, first.text
    assert first.json()["signedBy"] == "Mel Member"
    again = await client.post(
        f"{url}/complete", json={"signedBy": "Other"}, headers=world.member.headers
    )
    assert again.status_code == 200
    assert again.json() == first.json()
    patched = await client.patch(url, json={"results": ALL_PASS}, headers=world.member.headers)
    assert patched.status_code == 409
    assert patched.json()["code"] == "RUN_COMPLETED"
    deleted = await client.delete(url, headers=world.manager.headers)
    assert deleted.status_code == 409
    assert len(await _work_orders(client, world)) == 1
    got = await client.get(
        f"{templates_url(world.project.id)}/{template['id']}", headers=world.member.headers
    )
    assert got.json()["nextDueAt"] != template["nextDueAt"]


async def test_concurrent_completions_create_the_work_orders_once(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"])
    url = f"{runs_url(world.project.id)}/{run['id']}"
    two_fails = [{**ONE_FAIL[0]}, {"itemId": "ext", "outcome": "FAIL"}, *ONE_FAIL[2:]]
    await client.patch(url, json={"results": two_fails}, headers=world.member.headers)
    responses = await asyncio.gather(
        *(client.post(f"{url}/complete", headers=world.member.headers) for _ in range(4))
    )
    assert [r.status_code for r in responses] == [200] * 4
    assert len({tuple(o["id"] for o in r.json()["followUpWorkOrders"]) for r in responses}) == 1
    orders = await _work_orders(client, world)
    assert len(orders) == 2
    assert sorted(o["id"] for o in orders) == sorted(
        o["id"] for o in responses[0].json()["followUpWorkOrders"]
    )
    completed = [
        e for e in await audit_entries(run["id"]) if e.action == "inspection_run.completed"
    ]
    assert len(completed) == 1


async def test_runs_start_only_from_live_templates_and_assets_of_the_project(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    other = await om_world()
    foreign_template = await create_template(client, other)
    foreign_asset = await asset_id(client, other)
    template = await create_template(client, world)
    url = runs_url(world.project.id)
    headers = world.member.headers
    r = await client.post(url, json={"templateId": foreign_template["id"]}, headers=headers)
    assert r.status_code == 400  # an id in a body: 400 naming it (issue 24)
    assert r.json()["details"] == [
        {"field": "templateId", "message": "no such inspection template in this project"}
    ]
    r = await client.post(
        url, json={"templateId": template["id"], "assetId": foreign_asset}, headers=headers
    )
    assert r.status_code == 400
    assert r.json()["details"][0]["field"] == "assetId"
    r = await client.post(
        url,
        json={"templateId": template["id"], "assigneeId": other.member.user.id},
        headers=headers,
    )
    assert r.status_code == 400
    assert r.json()["details"][0]["field"] == "assigneeId"
    await client.delete(
        f"{templates_url(world.project.id)}/{template['id']}", headers=world.manager.headers
    )
    r = await client.post(url, json={"templateId": template["id"]}, headers=headers)
    assert r.status_code == 400
    assert (await client.get(url, headers=headers)).json() == []


async def test_a_template_edit_does_not_change_a_run_under_way(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"])
    turl = f"{templates_url(world.project.id)}/{template['id']}"
    await client.patch(
        turl,
        json={"items": [{"label": "Only this", "type": "CHECK"}]},
        headers=world.manager.headers,
    )
    got = await client.get(
        f"{runs_url(world.project.id)}/{run['id']}", headers=world.member.headers
    )
    assert got.json()["items"] == template["items"]


async def test_delete_a_draft_run(client: httpx.AsyncClient, world: World) -> None:
    world = await om_world()
    template = await create_template(client, world)
    mine = await create_run(client, world, template["id"])
    theirs = await create_run(client, world, template["id"], headers=world.manager.headers)
    base = runs_url(world.project.id)
    refused = await client.delete(f"{base}/{theirs['id']}", headers=world.member.headers)
    assert refused.status_code == 403
    assert (await client.delete(f"{base}/{mine['id']}", headers=world.member.headers)).json() == {
        "ok": True
    }
    assert (
        await client.get(f"{base}/{mine['id']}", headers=world.member.headers)
    ).status_code == 404
    assert [r["id"] for r in (await client.get(base, headers=world.member.headers)).json()] == [
        theirs["id"]
    ]


async def test_list_filters_and_fixed_queries(client: httpx.AsyncClient, world: World) -> None:
    world = await om_world()
    template = await create_template(client, world)
    other_template = await create_template(client, world)
    asset = await asset_id(client, world)
    first = await create_run(client, world, template["id"], asset_id=asset)
    url = runs_url(world.project.id)
    with QueryCounter() as one:
        assert len((await client.get(url, headers=world.member.headers)).json()) == 1
    for _ in range(6):
        await create_run(client, world, other_template["id"])
    with QueryCounter() as many:
        listed = (await client.get(url, headers=world.member.headers)).json()
    assert len(listed) == 7
    assert many.count == one.count
    assert listed[-1]["id"] == first["id"]
    by_template = await client.get(
        url, params={"templateId": template["id"]}, headers=world.member.headers
    )
    assert [r["id"] for r in by_template.json()] == [first["id"]]
    by_asset = await client.get(url, params={"assetId": asset}, headers=world.member.headers)
    assert [r["id"] for r in by_asset.json()] == [first["id"]]
    drafts = await client.get(url, params={"status": "COMPLETED"}, headers=world.member.headers)
    assert drafts.json() == []


async def test_the_list_asks_for_photos_only_when_a_run_has_some(
    client: httpx.AsyncClient, world: World
) -> None:
    """Like the issue list: whether a run has photos comes with its row, so a page without any
    runs no photo statement and a page with some runs one (naming only those runs)."""
    world = await om_world()
    template = await create_template(client, world)
    runs = [await create_run(client, world, template["id"]) for _ in range(3)]
    url = runs_url(world.project.id)
    with QueryCounter() as without:
        listed = (await client.get(url, headers=world.member.headers)).json()
    assert [run["photos"] for run in listed] == [[], [], []]
    photo = await add_photo(client, f"{url}/{runs[1]['id']}", world.member.headers, png())
    with QueryCounter() as with_one:
        listed = (await client.get(url, headers=world.member.headers)).json()
    assert with_one.count == without.count + 1
    by_id = {run["id"]: run["photos"] for run in listed}
    assert [p["id"] for p in by_id[runs[1]["id"]]] == [photo["id"]]
    assert by_id[runs[0]["id"]] == by_id[runs[2]["id"]] == []
    single = (await client.get(f"{url}/{runs[1]['id']}", headers=world.member.headers)).json()
    assert single["photos"] == by_id[runs[1]["id"]]
