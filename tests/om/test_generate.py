"""Preventive work orders through HTTP: generated once per schedule and due date (also under
concurrent calls), completed through the schedule or by resolving the work order, exactly once;
meter schedules made due by a reading; the project's time zone deciding "today"."""

import asyncio
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Issue, MaintenanceCompletion, MaintenanceSchedule
from tests.factories import World, create_asset, create_schedule, om_url, om_world


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def insert_schedules(world: World, asset_id: str, count: int) -> None:
    now = clock.now()
    rows = [
        {
            "id": new_id(),
            "project_id": world.project.id,
            "workspace_id": world.workspace.id,
            "asset_id": asset_id,
            "title": f"PM {n}",
            "frequency": "MONTHLY",
            "basis": "FLOATING",
            "anchor_day": 1,
            "next_due_at": now + timedelta(days=n % 30),
            "priority": "MEDIUM",
            "checklist": [{"id": new_id(), "label": "Look", "done": False}],
            "is_active": True,
            "created_at": now,
            "updated_at": now,
        }
        for n in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(MaintenanceSchedule), rows)
        await db.commit()


async def generate(client: Any, world: World) -> dict[str, list[str]]:
    response = await client.post(
        om_url(world.project, "/maintenance/generate-work-orders"), headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    result: dict[str, list[str]] = response.json()
    return result


async def issue(client: Any, world: World, issue_id: str) -> dict[str, Any]:
    response = await client.get(
        f"/api/v1/projects/{world.project.id}/issues/{issue_id}", headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def schedule_of(client: Any, world: World, schedule_id: str) -> dict[str, Any]:
    response = await client.get(
        om_url(world.project, f"/maintenance/{schedule_id}"), headers=world.member.headers
    )
    result: dict[str, Any] = response.json()
    return result


async def completions(schedule_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(MaintenanceCompletion.schedule_id == schedule_id)
        return int((await db.execute(query)).scalar_one())


async def work_orders(schedule_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(Issue.maintenance_schedule_id == schedule_id)
        return int((await db.execute(query)).scalar_one())


async def test_generate_creates_each_due_work_order_once(client):
    world = await om_world()
    clock.set_now(at("2026-04-10T08:00:00Z"))
    asset = await create_asset(client, world, location="Roof")
    due = await create_schedule(
        client,
        world,
        asset["id"],
        title="Filter change",
        nextDueAt="2026-04-10T22:00:00Z",  # later today: due by the end of today
        assigneeId=world.manager.id,
        priority="HIGH",
        checklist=[{"label": "Swap filters"}, {"label": "Log pressure drop", "done": True}],
    )
    await create_schedule(client, world, asset["id"], nextDueAt="2026-04-11T00:00:00Z")
    paused = await create_schedule(
        client, world, asset["id"], nextDueAt="2026-04-01T00:00:00Z", isActive=False
    )
    first = await generate(client, world)
    assert len(first["created"]) == 1 and first["existing"] == []
    order = await issue(client, world, first["created"][0])
    assert order["issueKind"] == "WORK_ORDER"
    assert order["workOrderType"] == "PREVENTIVE"
    assert order["maintenanceScheduleId"] == due["id"]
    assert order["assetId"] == asset["id"]
    assert order["assigneeId"] == world.manager.id
    assert order["priority"] == "HIGH"
    assert order["dueDate"] == "2026-04-10"
    assert order["title"] == "Filter change"
    assert [(i["label"], i["done"]) for i in order["checklist"]] == [
        ("Swap filters", False),
        ("Log pressure drop", False),
    ]
    assert isinstance(order["number"], int)
    again = await generate(client, world)
    assert again == {"created": [], "existing": first["created"]}
    assert await work_orders(paused["id"]) == 0
    # The assignee is told (the member generated them).
    notes = await client.get("/api/v1/me/notifications", headers=world.manager.headers)
    assert any(first["created"][0] in str(n) for n in notes.json()), notes.text


async def test_concurrent_generate_calls_create_each_work_order_once(client):
    world = await om_world()
    clock.set_now(at("2026-04-10T08:00:00Z"))
    asset = await create_asset(client, world)
    schedules = [
        await create_schedule(client, world, asset["id"], nextDueAt="2026-04-09T08:00:00Z")
        for _ in range(3)
    ]
    results = await asyncio.gather(*(generate(client, world) for _ in range(4)))
    created = [i for result in results for i in result["created"]]
    assert len(created) == 3 and len(set(created)) == 3
    for result in results:
        assert sorted(result["created"] + result["existing"]) == sorted(created)
    for schedule in schedules:
        assert await work_orders(schedule["id"]) == 1


async def test_generate_uses_the_end_of_today_in_the_project_time_zone(client):
    # 20:00 UTC on 10 March is 09:00 on 11 March in Auckland: its "today" ends at 11:00 UTC on
    # 11 March; UTC's ended at 00:00 UTC on 11 March.
    clock.set_now(at("2026-03-10T20:00:00Z"))
    auckland = await om_world(timezone="Pacific/Auckland")
    utc = await om_world()
    for world in (auckland, utc):
        asset = await create_asset(client, world)
        await create_schedule(client, world, asset["id"], nextDueAt="2026-03-11T05:00:00Z")
    made = await generate(client, auckland)
    assert len(made["created"]) == 1
    assert (await issue(client, auckland, made["created"][0]))["dueDate"] == "2026-03-11"
    assert await generate(client, utc) == {"created": [], "existing": []}


async def test_resolving_a_preventive_work_order_completes_its_schedule_once(client):
    world = await om_world()
    clock.set_now(at("2026-01-31T08:00:00Z"))
    asset = await create_asset(client, world)
    schedule = await create_schedule(
        client, world, asset["id"], basis="FIXED", nextDueAt="2026-01-31T09:00:00Z"
    )
    [order_id] = (await generate(client, world))["created"]
    url = f"/api/v1/projects/{world.project.id}/issues/{order_id}"
    clock.set_now(at("2026-01-31T15:00:00Z"))
    for status in ("RESOLVED", "OPEN", "RESOLVED", "CLOSED"):
        response = await client.patch(url, json={"status": status}, headers=world.member.headers)
        assert response.status_code == 200, response.text
    after = await schedule_of(client, world, schedule["id"])
    assert after["nextDueAt"] == "2026-02-28T09:00:00.000Z"
    assert after["lastCompletedAt"] == "2026-01-31T15:00:00.000Z"
    assert await completions(schedule["id"]) == 1
    # Through the schedule's route, the same work order is refused.
    again = await client.post(
        om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
        json={"workOrderId": order_id},
        headers=world.member.headers,
    )
    assert again.status_code == 409
    assert await completions(schedule["id"]) == 1


async def test_complete_through_the_schedule_with_its_work_order(client):
    world = await om_world()
    clock.set_now(at("2026-05-01T08:00:00Z"))
    asset = await create_asset(client, world)
    schedule = await create_schedule(
        client, world, asset["id"], frequency="WEEKLY", nextDueAt="2026-04-30T09:00:00Z"
    )
    [order_id] = (await generate(client, world))["created"]
    other = await create_schedule(client, world, asset["id"])
    wrong = await client.post(
        om_url(world.project, f"/maintenance/{other['id']}/complete"),
        json={"workOrderId": order_id},
        headers=world.member.headers,
    )
    assert wrong.status_code == 400
    assert wrong.json()["details"][0]["field"] == "workOrderId"
    done = await client.post(
        om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
        json={"workOrderId": order_id, "notes": "Belts fine"},
        headers=world.member.headers,
    )
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["workOrderId"] == order_id
    assert body["dueAt"] == "2026-04-30T09:00:00.000Z"
    assert body["onTime"] is False  # a day late
    assert body["schedule"]["nextDueAt"] == "2026-05-08T08:00:00.000Z"  # FLOATING
    # Resolving it afterwards does not complete the schedule again.
    await client.patch(
        f"/api/v1/projects/{world.project.id}/issues/{order_id}",
        json={"status": "RESOLVED"},
        headers=world.member.headers,
    )
    assert await completions(schedule["id"]) == 1
    missing = await client.post(
        om_url(world.project, "/maintenance/nope/complete"), json={}, headers=world.member.headers
    )
    assert missing.status_code == 404


async def test_a_reading_crossing_the_threshold_makes_the_schedule_due(client):
    world = await om_world()
    clock.set_now(at("2026-07-01T08:00:00Z"))
    asset = await create_asset(client, world, meters=[{"type": "RUN_HOURS", "unit": "h"}])
    schedule = await create_schedule(
        client,
        world,
        asset["id"],
        frequency="ANNUAL",
        nextDueAt="2027-07-01T08:00:00Z",
        meterType="RUN_HOURS",
        meterThreshold=1000,
    )
    assert schedule["dueLabel"] == "Meter/calendar"
    assert schedule["health"] == "ON_TRACK"
    readings = om_url(world.project, f"/assets/{asset['id']}/meter-readings")
    await client.post(
        readings, json={"meterType": "RUN_HOURS", "value": 999}, headers=world.member.headers
    )
    assert await generate(client, world) == {"created": [], "existing": []}
    clock.set_now(at("2026-07-02T08:00:00Z"))
    crossed = await client.post(
        readings, json={"meterType": "RUN_HOURS", "value": 1001}, headers=world.member.headers
    )
    assert crossed.status_code == 200
    due = await schedule_of(client, world, schedule["id"])
    assert due["nextDueAt"] == "2026-07-02T08:00:00.000Z"
    assert due["meterDueAt"] == "2026-07-02T08:00:00.000Z"
    assert due["calendarDueAt"] == "2027-07-01T08:00:00.000Z"
    assert due["health"] == "DUE_SOON"
    first = await generate(client, world)
    assert len(first["created"]) == 1
    # Further readings above the threshold do not make a second work order.
    await client.post(
        readings, json={"meterType": "RUN_HOURS", "value": 1100}, headers=world.member.headers
    )
    assert await generate(client, world) == {"created": [], "existing": first["created"]}
    await client.patch(
        f"/api/v1/projects/{world.project.id}/issues/{first['created'][0]}",
        json={"status": "RESOLVED"},
        headers=world.member.headers,
    )
    after = await schedule_of(client, world, schedule["id"])
    assert after["meterDueAt"] is None
    assert after["nextDueAt"] == "2027-07-02T08:00:00.000Z"  # FLOATING from the completion


async def test_meter_interval_counts_from_the_last_completion(client):
    world = await om_world()
    clock.set_now(at("2026-07-01T08:00:00Z"))
    asset = await create_asset(client, world, meters=[{"type": "RUN_HOURS", "unit": "h"}])
    readings = om_url(world.project, f"/assets/{asset['id']}/meter-readings")
    await client.post(
        readings, json={"meterType": "RUN_HOURS", "value": 200}, headers=world.member.headers
    )
    schedule = await create_schedule(
        client,
        world,
        asset["id"],
        frequency="ANNUAL",
        nextDueAt="2027-07-01T08:00:00Z",
        meterType="RUN_HOURS",
        meterInterval=500,
    )
    await client.post(
        readings, json={"meterType": "RUN_HOURS", "value": 650}, headers=world.member.headers
    )
    assert (await schedule_of(client, world, schedule["id"]))["meterDueAt"] is None
    clock.set_now(at("2026-07-03T08:00:00Z"))
    await client.post(
        readings, json={"meterType": "RUN_HOURS", "value": 700}, headers=world.member.headers
    )
    assert (await schedule_of(client, world, schedule["id"]))["meterDueAt"] == (
        "2026-07-03T08:00:00.000Z"
    )
    clock.set_now(at("2026-07-04T08:00:00Z"))
    done = await client.post(
        om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
        json={},
        headers=world.member.headers,
    )
    assert done.json()["dueAt"] == "2026-07-03T08:00:00.000Z"
    clock.set_now(at("2026-07-05T08:00:00Z"))
    await client.post(
        readings, json={"meterType": "RUN_HOURS", "value": 1150}, headers=world.member.headers
    )
    assert (await schedule_of(client, world, schedule["id"]))["meterDueAt"] is None
    await client.post(
        readings, json={"meterType": "RUN_HOURS", "value": 1200}, headers=world.member.headers
    )
    assert (await schedule_of(client, world, schedule["id"]))["meterDueAt"] is not None
