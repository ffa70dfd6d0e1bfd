"""Maintenance completions through HTTP: one rule for who completes, by the schedule's route or
by resolving a preventive work order, and once per due date whatever the number of calls."""

import asyncio
from datetime import timedelta
from typing import Any

import httpx

from plumbline.kit import clock
from tests.factories import World, create_asset, create_schedule, external, om_url, om_world
from tests.om.test_generate import at, completions, generate, schedule_of


def issues_url(world: World, suffix: str = "") -> str:
    return f"/api/v1/projects/{world.project.id}/issues{suffix}"


async def preventive_order(client: httpx.AsyncClient, world: World, actor: Any, schedule_id: str):  # type: ignore[no-untyped-def]
    """A PREVENTIVE work order naming the schedule, created and assigned to ``actor``."""
    response = await client.post(
        issues_url(world),
        json={
            "title": "PM by hand",
            "issueKind": "WORK_ORDER",
            "workOrderType": "PREVENTIVE",
            "maintenanceScheduleId": schedule_id,
            "assigneeId": actor.id,
        },
        headers=actor.headers,
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_contractor_cannot_complete_a_schedule_not_theirs_through_a_work_order(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    contractor = await external(world, "CONTRACTOR")
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"], frequency="WEEKLY")
    refused = await client.post(
        om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
        json={},
        headers=contractor.headers,
    )
    assert refused.status_code == 403
    order = await preventive_order(client, world, contractor, schedule["id"])
    resolved = await client.patch(
        issues_url(world, f"/{order['id']}"),
        json={"status": "RESOLVED"},
        headers=contractor.headers,
    )
    assert resolved.status_code == 403, resolved.text
    assert resolved.json()["error"] == refused.json()["error"]
    assert await schedule_of(client, world, schedule["id"]) == schedule
    assert await completions(schedule["id"]) == 0
    still = await client.get(issues_url(world, f"/{order['id']}"), headers=contractor.headers)
    assert still.json()["status"] == "OPEN"


async def test_a_contractor_completes_their_schedule_through_its_work_order(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    contractor = await external(world, "CONTRACTOR")
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"], assigneeId=contractor.id)
    [order_id] = (await generate(client, world))["created"]
    resolved = await client.patch(
        issues_url(world, f"/{order_id}"), json={"status": "RESOLVED"}, headers=contractor.headers
    )
    assert resolved.status_code == 200, resolved.text
    assert await completions(schedule["id"]) == 1
    assert (await schedule_of(client, world, schedule["id"]))["lastCompletedAt"] is not None


async def test_concurrent_completions_record_one_and_move_the_schedule_once(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"], frequency="WEEKLY", basis="FIXED")
    url = om_url(world.project, f"/maintenance/{schedule['id']}/complete")
    responses = await asyncio.gather(
        *(client.post(url, json={}, headers=world.member.headers) for _ in range(6))
    )
    assert [r.status_code for r in responses] == [200] * 6, [r.text for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1
    assert await completions(schedule["id"]) == 1
    after = await schedule_of(client, world, schedule["id"])
    assert after["nextDueAt"] == responses[0].json()["schedule"]["nextDueAt"]
    # one week after the due date met, not six
    assert at(after["nextDueAt"]) - at(schedule["nextDueAt"]) == timedelta(days=7)


async def test_a_due_date_met_by_hand_is_not_met_again_by_its_work_order(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    clock.set_now(at("2026-03-02T08:00:00Z"))
    asset = await create_asset(client, world)
    schedule = await create_schedule(
        client, world, asset["id"], basis="FIXED", nextDueAt="2026-03-02T09:00:00Z"
    )
    [order_id] = (await generate(client, world))["created"]
    by_hand = await client.post(
        om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
        json={},
        headers=world.member.headers,
    )
    assert by_hand.status_code == 200, by_hand.text
    assert by_hand.json()["schedule"]["nextDueAt"] == "2026-04-02T09:00:00.000Z"
    clock.set_now(at("2026-03-05T08:00:00Z"))
    resolved = await client.patch(
        issues_url(world, f"/{order_id}"), json={"status": "RESOLVED"}, headers=world.member.headers
    )
    assert resolved.status_code == 200, resolved.text
    assert await completions(schedule["id"]) == 1
    after = await schedule_of(client, world, schedule["id"])
    assert after["nextDueAt"] == "2026-04-02T09:00:00.000Z"
