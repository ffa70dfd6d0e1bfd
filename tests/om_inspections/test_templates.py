"""Inspection templates: create, read, update, delete, due dates, bad input, list queries."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from plumbline.kit import clock
from tests.factories import QueryCounter, World, audit_entries, om_world
from tests.om_inspections.helpers import (
    FIRE_WALK,
    create_run,
    create_template,
    runs_url,
    templates_url,
)


async def test_create_returns_every_field_and_keeps_item_ids(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    clock.set_now(datetime(2026, 1, 10, 8, 0, tzinfo=UTC))
    template = await create_template(client, world)
    assert template["projectId"] == world.project.id
    assert template["name"] == FIRE_WALK["name"]
    assert template["description"] == FIRE_WALK["description"]
    assert template["frequency"] == "MONTHLY"
    assert template["intervalDays"] is None
    assert template["nextDueAt"] == "2026-01-31T09:00:00.000Z"
    assert template["createdBy"] == world.manager.user.id
    assert template["createdAt"] == "2026-01-10T08:00:00.000Z"
    assert [item["id"] for item in template["items"]] == ["exits", "ext", "panel", "temp", "notes"]
    assert template["items"][0] == {
        "id": "exits",
        "label": "Exit routes clear",
        "type": "PASS_FAIL",
        "required": True,
        "onFail": "CREATE_WORK_ORDER",
    }
    assert template["items"][2]["onFail"] == "NONE"
    got = await client.get(
        f"{templates_url(world.project.id)}/{template['id']}", headers=world.member.headers
    )
    assert got.json() == template
    listed = await client.get(templates_url(world.project.id), headers=world.member.headers)
    assert listed.json() == [template]
    assert [e.action for e in await audit_entries(template["id"])] == [
        "inspection_template.created"
    ]


@pytest.mark.parametrize(
    ("frequency", "interval", "due"),
    [
        ("DAILY", None, "2026-01-31T08:00:00.000Z"),
        ("WEEKLY", None, "2026-02-06T08:00:00.000Z"),
        ("BIWEEKLY", None, "2026-02-13T08:00:00.000Z"),
        ("MONTHLY", None, "2026-02-28T08:00:00.000Z"),
        ("QUARTERLY", None, "2026-04-30T08:00:00.000Z"),
        ("SEMI_ANNUAL", None, "2026-07-30T08:00:00.000Z"),
        ("ANNUAL", None, "2027-01-30T08:00:00.000Z"),
        ("CUSTOM", 10, "2026-02-09T08:00:00.000Z"),
    ],
)
async def test_due_now_without_next_due_at_then_one_interval_per_walk(
    client: httpx.AsyncClient, world: World, frequency: str, interval: int | None, due: str
) -> None:
    world = await om_world()
    clock.set_now(datetime(2026, 1, 30, 8, 0, tzinfo=UTC))
    body = {**FIRE_WALK, "frequency": frequency, "intervalDays": interval}
    body.pop("nextDueAt")
    template = await create_template(client, world, body)
    assert template["nextDueAt"] == "2026-01-30T08:00:00.000Z"
    assert template["intervalDays"] == interval
    run = await create_run(client, world, template["id"])
    url = f"{runs_url(world.project.id)}/{run['id']}"
    answers = [{"itemId": "exits", "outcome": "PASS"}, {"itemId": "ext", "outcome": "PASS"}]
    answers.append({"itemId": "panel", "outcome": "DONE"})
    await client.patch(url, json={"results": answers}, headers=world.member.headers)
    assert (await client.post(f"{url}/complete", headers=world.member.headers)).status_code == 200
    got = await client.get(
        f"{templates_url(world.project.id)}/{template['id']}", headers=world.member.headers
    )
    assert got.json()["nextDueAt"] == due


async def test_due_dates_keep_the_project_wall_clock(client: httpx.AsyncClient) -> None:
    """New York: due 9:00 local on 31 Jan (EST, 14:00 UTC); a month later 9:00 local is
    still 14:00 UTC, and after the March change to EDT it is 13:00 UTC."""
    world = await om_world(timezone="America/New_York")
    clock.set_now(datetime(2026, 1, 31, 15, 0, tzinfo=UTC))
    template = await create_template(
        client, world, {**FIRE_WALK, "nextDueAt": "2026-01-31T14:00:00Z"}
    )
    dues = []
    for when in (
        datetime(2026, 1, 31, 15, 0, tzinfo=UTC),
        datetime(2026, 2, 28, 15, 0, tzinfo=UTC),
    ):
        clock.set_now(when)
        run = await create_run(client, world, template["id"])
        url = f"{runs_url(world.project.id)}/{run['id']}"
        answers = [
            {"itemId": "exits", "outcome": "PASS"},
            {"itemId": "ext", "outcome": "NA"},
            {"itemId": "panel", "outcome": "DONE"},
        ]
        await client.patch(url, json={"results": answers}, headers=world.member.headers)
        await client.post(f"{url}/complete", headers=world.member.headers)
        got = await client.get(
            f"{templates_url(world.project.id)}/{template['id']}", headers=world.member.headers
        )
        dues.append(got.json()["nextDueAt"])
    assert dues == ["2026-02-28T14:00:00.000Z", "2026-03-31T13:00:00.000Z"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"frequency": "HOURLY"}, "frequency"),
        ({"frequency": "CUSTOM"}, "intervalDays"),
        ({"frequency": "CUSTOM", "intervalDays": 0}, "intervalDays"),
        ({"frequency": "CUSTOM", "intervalDays": 3651}, "intervalDays"),
        ({"frequency": "WEEKLY", "intervalDays": 5}, "intervalDays"),
        ({"items": []}, "items"),
        ({"items": [{"label": "x", "type": "SMELL"}]}, "items.0.type"),
        ({"items": [{"id": "a", "label": "x"}, {"id": "a", "label": "y"}]}, "items"),
        ({"name": ""}, "name"),
        ({"nextDueAt": "1999-12-31T00:00:00Z"}, "nextDueAt"),
    ],
)
async def test_bad_template_is_400_naming_the_field_and_writes_nothing(
    client: httpx.AsyncClient, world: World, change: dict[str, object], field: str
) -> None:
    world = await om_world()
    response = await client.post(
        templates_url(world.project.id), json={**FIRE_WALK, **change}, headers=world.manager.headers
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED"
    assert any(d["field"].startswith(field) for d in body["details"]), body
    listed = await client.get(templates_url(world.project.id), headers=world.manager.headers)
    assert listed.json() == []


async def test_update_items_and_schedule_restart_the_count(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    template = await create_template(client, world)
    url = f"{templates_url(world.project.id)}/{template['id']}"
    items = [*template["items"][:2], {"label": "Emergency lighting works", "type": "CHECK"}]
    response = await client.patch(
        url,
        json={"name": "Fire walk", "items": items, "frequency": "CUSTOM", "intervalDays": 14},
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated["name"] == "Fire walk"
    assert updated["frequency"] == "CUSTOM"
    assert updated["intervalDays"] == 14
    assert updated["nextDueAt"] == template["nextDueAt"]
    assert [i["id"] for i in updated["items"][:2]] == ["exits", "ext"]
    assert updated["items"][2]["id"]
    assert updated["description"] == template["description"]
    back = await client.patch(url, json={"frequency": "WEEKLY"}, headers=world.manager.headers)
    assert back.status_code == 200, back.text
    assert back.json()["intervalDays"] is None
    bad = await client.patch(url, json={"frequency": "CUSTOM"}, headers=world.manager.headers)
    assert bad.status_code == 400
    assert bad.json()["details"][0]["field"] == "intervalDays"
    nulls = await client.patch(url, json={"name": None}, headers=world.manager.headers)
    assert nulls.status_code == 400
    actions = [e.action for e in await audit_entries(template["id"])]
    assert actions == [
        "inspection_template.created",
        "inspection_template.updated",
        "inspection_template.updated",
    ]


async def test_members_read_templates_but_only_managers_set_them_up(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    refused = await client.post(
        templates_url(world.project.id), json=FIRE_WALK, headers=world.member.headers
    )
    assert refused.status_code == 403
    template = await create_template(client, world)
    url = f"{templates_url(world.project.id)}/{template['id']}"
    assert (
        await client.patch(url, json={"name": "x"}, headers=world.member.headers)
    ).status_code == 403
    assert (await client.delete(url, headers=world.member.headers)).status_code == 403
    assert (await client.get(url, headers=world.member.headers)).status_code == 200


async def test_delete_hides_the_template_and_another_workspace_gets_404(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    other = await om_world()
    template = await create_template(client, world)
    url = f"{templates_url(world.project.id)}/{template['id']}"
    foreign = f"{templates_url(other.project.id)}/{template['id']}"
    assert (await client.get(foreign, headers=other.manager.headers)).status_code == 404
    assert (
        await client.patch(foreign, json={"name": "x"}, headers=other.manager.headers)
    ).status_code == 404
    assert (await client.get(url, headers=other.manager.headers)).status_code == 404
    deleted = await client.delete(url, headers=world.manager.headers)
    assert deleted.json() == {"ok": True}
    assert (await client.get(url, headers=world.manager.headers)).status_code == 404
    listed = await client.get(templates_url(world.project.id), headers=world.manager.headers)
    assert listed.json() == []


async def test_list_runs_a_fixed_number_of_queries(client: httpx.AsyncClient, world: World) -> None:
    world = await om_world()
    await create_template(client, world)
    url = templates_url(world.project.id)
    with QueryCounter() as one:
        assert len((await client.get(url, headers=world.member.headers)).json()) == 1
    for _ in range(7):
        await create_template(client, world)
    with QueryCounter() as many:
        assert len((await client.get(url, headers=world.member.headers)).json()) == 8
    assert many.count == one.count
