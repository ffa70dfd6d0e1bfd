"""Maintenance schedules through HTTP at chosen instants: the spec's shapes, bad input, every
frequency and basis across month ends and leap years, health, time zones, pause/resume."""

from datetime import datetime

import pytest

from plumbline.kit import clock
from tests.factories import (
    QueryCounter,
    audit_entries,
    create_asset,
    create_schedule,
    om_url,
    om_world,
)
from tests.om.test_generate import insert_schedules


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def complete(client, world, schedule_id, **body):  # type: ignore[no-untyped-def]
    response = await client.post(
        om_url(world.project, f"/maintenance/{schedule_id}/complete"),
        json=body,
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_create_answers_the_spec_shape_and_the_list_is_an_array(client):
    world = await om_world()
    clock.set_now(at("2026-03-10T09:00:00Z"))
    asset = await create_asset(client, world)
    response = await client.post(
        om_url(world.project, "/maintenance"),
        json={"assetId": asset["id"], "title": "Belt check", "frequency": "WEEKLY"},
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert {k: body[k] for k in ("projectId", "assetId", "title", "frequency")} == {
        "projectId": world.project.id,
        "assetId": asset["id"],
        "title": "Belt check",
        "frequency": "WEEKLY",
    }
    assert isinstance(body["id"], str)
    assert body["basis"] == "FLOATING"
    assert body["isActive"] is True
    assert body["nextDueAt"] == "2026-03-10T09:00:00.000Z"  # due today by default
    assert body["health"] == "DUE_SOON"
    assert body["dueLabel"] == "Calendar"
    listed = await client.get(om_url(world.project, "/maintenance"), headers=world.member.headers)
    assert listed.json() == [body]
    one = await client.get(
        om_url(world.project, f"/maintenance/{body['id']}"), headers=world.member.headers
    )
    assert one.json() == body
    assert [e.action for e in await audit_entries(body["id"])] == ["maintenance_schedule.created"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"frequency": "FORTNIGHTLY"}, "frequency"),
        ({"frequency": "CUSTOM"}, None),
        ({"frequency": "CUSTOM", "intervalDays": 0}, "intervalDays"),
        ({"frequency": "CUSTOM", "intervalDays": 3651}, "intervalDays"),
        ({"frequency": "MONTHLY", "intervalDays": 10}, None),
        ({"frequency": "MONTHLY", "meterType": "RUN_HOURS"}, None),
        ({"frequency": "MONTHLY", "meterInterval": 10}, None),
        ({"frequency": "MONTHLY", "basis": "SOMETIMES"}, "basis"),
        ({"title": ""}, "title"),
    ],
)
async def test_bad_input_is_400(client, body, field):
    world = await om_world()
    asset = await create_asset(client, world)
    payload = {"assetId": asset["id"], "title": "PM", "frequency": "MONTHLY"} | body
    response = await client.post(
        om_url(world.project, "/maintenance"), json=payload, headers=world.manager.headers
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    if field:
        assert field in {detail["field"] for detail in response.json()["details"]}


async def test_meter_must_exist_on_the_asset_and_the_asset_in_the_project(client):
    world = await om_world()
    asset = await create_asset(client, world, meters=[{"type": "RUN_HOURS"}])
    url = om_url(world.project, "/maintenance")
    no_meter = await client.post(
        url,
        json={
            "assetId": asset["id"],
            "title": "PM",
            "frequency": "MONTHLY",
            "meterType": "KWH",
            "meterInterval": 500,
        },
        headers=world.manager.headers,
    )
    assert no_meter.status_code == 400
    assert no_meter.json()["details"][0]["field"] == "meterType"
    other = await om_world()
    foreign = await create_asset(client, other)
    response = await client.post(
        url,
        json={"assetId": foreign["id"], "title": "PM", "frequency": "MONTHLY"},
        headers=world.manager.headers,
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "assetId"
    member = await client.post(
        url,
        json={"assetId": asset["id"], "title": "PM", "frequency": "MONTHLY"},
        headers=world.member.headers,
    )
    assert member.status_code == 403
    stranger = await client.post(
        url,
        json={
            "assetId": asset["id"],
            "title": "PM",
            "frequency": "MONTHLY",
            "assigneeId": other.member.id,
        },
        headers=world.manager.headers,
    )
    assert stranger.status_code == 400
    assert stranger.json()["details"][0]["field"] == "assigneeId"


async def test_fixed_monthly_keeps_its_anchor_day_through_february(client):
    world = await om_world()
    clock.set_now(at("2024-01-20T08:00:00Z"))
    asset = await create_asset(client, world)
    schedule = await create_schedule(
        client, world, asset["id"], basis="FIXED", nextDueAt="2024-01-31T09:00:00Z"
    )
    dues = []
    for now in ("2024-01-31T10:00:00Z", "2024-02-29T10:00:00Z", "2024-03-31T10:00:00Z"):
        clock.set_now(at(now))
        dues.append((await complete(client, world, schedule["id"]))["schedule"]["nextDueAt"])
    assert dues == [
        "2024-02-29T09:00:00.000Z",  # leap year
        "2024-03-31T09:00:00.000Z",  # back on the 31st
        "2024-04-30T09:00:00.000Z",
    ]


async def test_fixed_monthly_in_a_common_year_and_fixed_ignores_late_completion(client):
    world = await om_world()
    clock.set_now(at("2025-01-31T08:00:00Z"))
    asset = await create_asset(client, world)
    schedule = await create_schedule(
        client, world, asset["id"], basis="FIXED", nextDueAt="2025-01-31T09:00:00Z"
    )
    clock.set_now(at("2025-02-10T10:00:00Z"))  # late: FIXED still counts from the due date
    done = await complete(client, world, schedule["id"])
    assert done["onTime"] is False
    assert done["dueAt"] == "2025-01-31T09:00:00.000Z"
    assert done["schedule"]["nextDueAt"] == "2025-02-28T09:00:00.000Z"
    assert done["schedule"]["lastCompletedAt"] == "2025-02-10T10:00:00.000Z"


async def test_floating_counts_from_the_completion(client):
    world = await om_world()
    clock.set_now(at("2024-01-01T08:00:00Z"))
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"], nextDueAt="2024-01-15T09:00:00Z")
    clock.set_now(at("2024-01-31T16:00:00Z"))
    first = await complete(client, world, schedule["id"], notes="Done late")
    assert first["onTime"] is False
    assert first["notes"] == "Done late"
    assert first["completedBy"] == world.member.id
    assert first["schedule"]["nextDueAt"] == "2024-02-29T16:00:00.000Z"
    clock.set_now(at("2024-02-20T16:00:00Z"))
    second = await complete(client, world, schedule["id"], completedAt="2024-02-19T07:00:00Z")
    assert second["onTime"] is True
    assert second["schedule"]["nextDueAt"] == "2024-03-19T07:00:00.000Z"
    future = await client.post(
        om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
        json={"completedAt": "2024-03-01T00:00:00Z"},
        headers=world.member.headers,
    )
    assert future.status_code == 400


@pytest.mark.parametrize(
    ("frequency", "extra", "due", "expected"),
    [
        ("DAILY", {}, "2024-02-28T09:00:00Z", "2024-02-29T09:00:00.000Z"),
        ("WEEKLY", {}, "2024-02-26T09:00:00Z", "2024-03-04T09:00:00.000Z"),
        ("BIWEEKLY", {}, "2024-12-25T09:00:00Z", "2025-01-08T09:00:00.000Z"),
        ("MONTHLY", {}, "2023-01-31T09:00:00Z", "2023-02-28T09:00:00.000Z"),
        ("QUARTERLY", {}, "2023-11-30T09:00:00Z", "2024-02-29T09:00:00.000Z"),
        ("SEMI_ANNUAL", {}, "2023-08-31T09:00:00Z", "2024-02-29T09:00:00.000Z"),
        ("ANNUAL", {}, "2024-02-29T09:00:00Z", "2025-02-28T09:00:00.000Z"),
        ("CUSTOM", {"intervalDays": 10}, "2024-02-25T09:00:00Z", "2024-03-06T09:00:00.000Z"),
        ("CUSTOM", {"intervalDays": 3650}, "2024-01-01T09:00:00Z", "2033-12-29T09:00:00.000Z"),
    ],
)
async def test_each_frequency_fixed(client, frequency, extra, due, expected):
    world = await om_world()
    clock.set_now(at(due))
    asset = await create_asset(client, world)
    schedule = await create_schedule(
        client, world, asset["id"], frequency=frequency, basis="FIXED", nextDueAt=due, **extra
    )
    done = await complete(client, world, schedule["id"])
    assert done["onTime"] is True
    assert done["schedule"]["nextDueAt"] == expected


async def test_annual_fixed_returns_to_29_february_in_the_next_leap_year(client):
    # (Instants before the test sessions were signed in: they stay valid.)
    world = await om_world()
    clock.set_now(at("2020-02-29T09:00:00Z"))
    asset = await create_asset(client, world)
    schedule = await create_schedule(
        client,
        world,
        asset["id"],
        frequency="ANNUAL",
        basis="FIXED",
        nextDueAt="2020-02-29T09:00:00Z",
    )
    dues = []
    for year in (2021, 2022, 2023, 2024):
        clock.set_now(at(f"{year - 1}-03-01T09:00:00Z"))
        dues.append((await complete(client, world, schedule["id"]))["schedule"]["nextDueAt"])
    assert dues == [
        "2021-02-28T09:00:00.000Z",
        "2022-02-28T09:00:00.000Z",
        "2023-02-28T09:00:00.000Z",
        "2024-02-29T09:00:00.000Z",
    ]


async def test_health_at_chosen_instants(client):
    world = await om_world()
    clock.set_now(at("2026-06-01T12:00:00Z"))
    asset = await create_asset(client, world)
    overdue = await create_schedule(client, world, asset["id"], nextDueAt="2026-05-31T23:00:00Z")
    today = await create_schedule(client, world, asset["id"], nextDueAt="2026-06-01T01:00:00Z")
    soon = await create_schedule(client, world, asset["id"], nextDueAt="2026-06-08T23:00:00Z")
    later = await create_schedule(client, world, asset["id"], nextDueAt="2026-06-09T00:00:00Z")
    health = {
        row["id"]: row["health"]
        for row in (
            await client.get(om_url(world.project, "/maintenance"), headers=world.member.headers)
        ).json()
    }
    assert health == {
        overdue["id"]: "OVERDUE",
        today["id"]: "DUE_SOON",
        soon["id"]: "DUE_SOON",
        later["id"]: "ON_TRACK",
    }


async def test_health_and_days_follow_the_project_time_zone(client):
    # 20:00 UTC on 10 March is 09:00 on 11 March in Auckland (UTC+13).
    world = await om_world(timezone="Pacific/Auckland")
    clock.set_now(at("2026-03-10T20:00:00Z"))
    asset = await create_asset(client, world)
    # Due 18:00 UTC on 10 March: 07:00 on 11 March in Auckland, i.e. today there, not overdue.
    schedule = await create_schedule(client, world, asset["id"], nextDueAt="2026-03-10T18:00:00Z")
    assert schedule["health"] == "DUE_SOON"
    utc = await om_world()
    utc_asset = await create_asset(client, utc, tag=asset["tag"])
    same = await create_schedule(client, utc, utc_asset["id"], nextDueAt="2026-03-09T18:00:00Z")
    assert same["health"] == "OVERDUE"


async def test_fixed_monthly_keeps_the_local_wall_time_across_daylight_saving(client):
    world = await om_world(timezone="America/New_York")
    clock.set_now(at("2026-02-15T15:00:00Z"))
    asset = await create_asset(client, world)
    # 10:00 in New York (EST, UTC-5); a month later it is EDT (UTC-4): still 10:00 there.
    schedule = await create_schedule(
        client, world, asset["id"], basis="FIXED", nextDueAt="2026-02-15T15:00:00Z"
    )
    done = await complete(client, world, schedule["id"])
    assert done["schedule"]["nextDueAt"] == "2026-03-15T14:00:00.000Z"


async def test_patch_pauses_resumes_and_reanchors(client):
    world = await om_world()
    clock.set_now(at("2026-01-05T09:00:00Z"))
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"], basis="FIXED")
    url = om_url(world.project, f"/maintenance/{schedule['id']}")
    paused = await client.patch(url, json={"isActive": False}, headers=world.manager.headers)
    assert paused.json()["isActive"] is False
    member = await client.patch(url, json={"isActive": True}, headers=world.member.headers)
    assert member.status_code == 403
    moved = await client.patch(
        url,
        json={
            "isActive": True,
            "nextDueAt": "2026-01-31T09:00:00Z",
            "title": "Filters",
            "frequency": "CUSTOM",
            "intervalDays": 5,
        },
        headers=world.manager.headers,
    )
    assert moved.status_code == 200, moved.text
    assert (moved.json()["isActive"], moved.json()["title"]) == (True, "Filters")
    assert moved.json()["intervalDays"] == 5
    back = await client.patch(url, json={"frequency": "MONTHLY"}, headers=world.manager.headers)
    assert back.json()["intervalDays"] is None
    done = await complete(client, world, schedule["id"])
    assert done["schedule"]["nextDueAt"] == "2026-02-28T09:00:00.000Z"
    bad = await client.patch(url, json={"frequency": "CUSTOM"}, headers=world.manager.headers)
    assert bad.status_code == 400
    nulls = await client.patch(url, json={"isActive": None}, headers=world.manager.headers)
    assert nulls.status_code == 400
    missing = await client.patch(
        om_url(world.project, "/maintenance/nope"), json={}, headers=world.manager.headers
    )
    assert missing.status_code == 404


async def test_list_runs_the_same_queries_for_1_and_500(client):
    counts = []
    for size in (1, 500):
        world = await om_world()
        asset = await create_asset(client, world)
        await insert_schedules(world, asset["id"], size)
        with QueryCounter() as counter:
            response = await client.get(
                om_url(world.project, "/maintenance?limit=500"), headers=world.member.headers
            )
        assert response.status_code == 200, response.text
        assert len(response.json()) == size
        counts.append(counter.count)
    assert counts[0] == counts[1]
