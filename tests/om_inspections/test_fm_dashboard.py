"""The FM dashboard at a chosen instant, with every figure's exact value, and its query count
at 1 and at 500 rows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
from sqlalchemy import insert, update

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Issue
from tests.factories import (
    QueryCounter,
    World,
    create_asset,
    create_schedule,
    om_url,
    om_world,
)
from tests.om_inspections.helpers import FIRE_WALK, create_run, create_template, runs_url

# Wednesday 11 March 2026, noon UTC: the week runs Mon 9 - Sun 15, "soon" to the end of the 18th.
NOW = datetime(2026, 3, 11, 12, 0, tzinfo=UTC)
EMPTY = {
    "openWorkOrders": 0,
    "inProgressWorkOrders": 0,
    "openOccupantRequests": 0,
    "overdueMaintenance": 0,
    "maintenanceDueThisWeek": 0,
    "maintenanceDueSoon": 0,
    "pmCompliancePct": None,
    "workOrderBacklogOver7Days": 0,
    "workOrderBacklogOver30Days": 0,
    "mttrHours": None,
    "assetsTracked": 0,
    "overdueInspections": 0,
    "failedInspectionsLast30Days": 0,
    "maintenanceCostLast30Days": "0.00",
    "availabilityLast30Days": None,
}


def at(month: int, day: int, hour: int = 12) -> datetime:
    return datetime(2026, month, day, hour, 0, tzinfo=UTC)


async def dashboard(client: httpx.AsyncClient, world: World) -> dict[str, Any]:
    response = await client.get(
        om_url(world.project, "/fm-dashboard"), headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


async def issue(
    client: httpx.AsyncClient, world: World, when: datetime, **body: Any
) -> dict[str, Any]:
    clock.set_now(when)
    payload = {"title": f"Work {new_id()[-6:]}", "issueKind": "WORK_ORDER"} | body
    response = await client.post(
        f"/api/v1/projects/{world.project.id}/issues", json=payload, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


async def set_status(
    client: httpx.AsyncClient, world: World, issue_id: str, status: str, when: datetime
) -> None:
    clock.set_now(when)
    response = await client.patch(
        f"/api/v1/projects/{world.project.id}/issues/{issue_id}",
        json={"status": status},
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text


async def walk(
    client: httpx.AsyncClient,
    world: World,
    template_id: str,
    when: datetime,
    results: list[dict[str, Any]],
) -> dict[str, Any]:
    clock.set_now(when)
    run = await create_run(client, world, template_id)
    url = f"{runs_url(world.project.id)}/{run['id']}"
    saved = await client.patch(url, json={"results": results}, headers=world.member.headers)
    assert saved.status_code == 200, saved.text
    done = await client.post(f"{url}/complete", headers=world.member.headers)
    assert done.status_code == 200, done.text
    found: dict[str, Any] = done.json()
    return found


PASS = [
    {"itemId": "exits", "outcome": "PASS"},
    {"itemId": "ext", "outcome": "PASS"},
    {"itemId": "panel", "outcome": "DONE"},
]


async def test_every_figure_at_a_chosen_instant(client: httpx.AsyncClient) -> None:
    world = await om_world()
    assert await dashboard(client, world) == EMPTY

    clock.set_now(at(1, 2))
    pump = (await create_asset(client, world, name="Fire pump"))["id"]
    ahu = (await create_asset(client, world, name="AHU-1"))["id"]
    old = (await create_asset(client, world, name="Old boiler", status="RETIRED"))["id"]

    # maintenance: overdue (5 Mar), due this week (13 Mar), due soon but next week (17 Mar),
    # on track (20 Apr), paused (not counted although its date passed)
    for due in ("2026-03-05", "2026-03-13", "2026-03-17", "2026-04-20"):
        await create_schedule(client, world, pump, nextDueAt=f"{due}T09:00:00Z", title=f"PM {due}")
    await create_schedule(client, world, ahu, nextDueAt="2026-03-01T09:00:00Z", isActive=False)
    await create_schedule(client, world, old, nextDueAt="2026-01-01T09:00:00Z", isActive=False)
    # completions in the last 30 days: one late (due 1 Mar, done 2 Mar), one on time; one older
    late = await create_schedule(
        client, world, ahu, nextDueAt="2026-03-01T09:00:00Z", title="Belts"
    )
    early = await create_schedule(
        client, world, ahu, nextDueAt="2026-03-10T09:00:00Z", title="Filters"
    )
    ancient = await create_schedule(
        client, world, ahu, nextDueAt="2026-01-05T09:00:00Z", title="Coils", frequency="ANNUAL"
    )
    for schedule, when in ((late, at(3, 2)), (early, at(3, 9)), (ancient, at(1, 5))):
        clock.set_now(when)
        done = await client.post(
            om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
            json={},
            headers=world.member.headers,
        )
        assert done.status_code == 200, done.text

    # work orders: OPEN since 1 Feb (backlog > 30 d), IN_PROGRESS since 1 Mar (> 7 d), OPEN
    # today; two resolved in the window in 36 h and 12 h; a resolved one from January; a
    # deleted one and a construction issue that do not count
    await issue(client, world, at(2, 1))
    progress = await issue(client, world, at(3, 1))
    await set_status(client, world, progress["id"], "IN_PROGRESS", at(3, 2))
    await issue(client, world, at(3, 11, 10))
    slow = await issue(client, world, at(3, 9, 12))
    await set_status(client, world, slow["id"], "RESOLVED", at(3, 11, 0))
    quick = await issue(client, world, at(3, 10, 6))
    await set_status(client, world, quick["id"], "RESOLVED", at(3, 10, 18))
    january = await issue(client, world, at(1, 3))
    await set_status(client, world, january["id"], "CLOSED", at(1, 20))
    gone = await issue(client, world, at(2, 1))
    clock.set_now(at(2, 2))
    await client.delete(
        f"/api/v1/projects/{world.project.id}/issues/{gone['id']}", headers=world.manager.headers
    )
    await issue(client, world, at(2, 1), issueKind="CONSTRUCTION")
    # occupant requests (only the occupant portal creates them): open, in progress, resolved
    occupant = [await issue(client, world, at(3, 3), issueKind="CONSTRUCTION") for _ in range(3)]
    async with database.sessionmaker() as db:
        for row, status in zip(occupant, ("OPEN", "IN_PROGRESS", "RESOLVED"), strict=True):
            await db.execute(
                update(Issue)
                .where(Issue.id == row["id"])
                .values(issue_kind="OCCUPANT", status=status)
            )
        await db.commit()

    # inspections: one overdue since 1 Mar; a walk on 5 Mar failing an item (its follow-up
    # work order is open, 6 days old); a failed walk in January; a walk that passed
    clock.set_now(at(1, 2))
    await create_template(client, world, {**FIRE_WALK, "nextDueAt": "2026-03-01T09:00:00Z"})
    weekly = await create_template(
        client, world, {**FIRE_WALK, "nextDueAt": "2026-03-20T09:00:00Z"}
    )
    quiet = {**FIRE_WALK, "nextDueAt": "2026-12-01T09:00:00Z"}
    quiet["items"] = [{**item, "onFail": "NONE"} for item in FIRE_WALK["items"]]
    yearly = await create_template(client, world, quiet)
    failed = [{"itemId": "exits", "outcome": "FAIL"}, *PASS[1:]]
    recent = await walk(client, world, weekly["id"], at(3, 5), failed)
    assert len(recent["followUpWorkOrders"]) == 1
    await walk(client, world, yearly["id"], at(1, 20), failed)
    await walk(client, world, yearly["id"], at(3, 6), PASS)

    clock.set_now(NOW)
    assert await dashboard(client, world) == {
        "openWorkOrders": 3,  # 1 Feb, today, the inspection follow-up
        "inProgressWorkOrders": 1,
        "openOccupantRequests": 2,
        "overdueMaintenance": 1,
        "maintenanceDueThisWeek": 1,
        "maintenanceDueSoon": 2,
        "pmCompliancePct": 33.3,  # 1 on time of 2 completions + 1 overdue
        "workOrderBacklogOver7Days": 2,
        "workOrderBacklogOver30Days": 1,
        "mttrHours": 24.0,  # (36 + 12) / 2
        "assetsTracked": 2,
        "overdueInspections": 1,
        "failedInspectionsLast30Days": 1,
        "maintenanceCostLast30Days": "0.00",
        "availabilityLast30Days": 1.0,  # two assets, never down
    }
    # another workspace's dashboard does not see any of it, nor this one
    other = await om_world()
    assert await dashboard(client, other) == EMPTY
    hidden = await client.get(om_url(world.project, "/fm-dashboard"), headers=other.owner.headers)
    assert hidden.status_code == 404


async def test_due_days_are_the_project_days(client: httpx.AsyncClient) -> None:
    """In Sydney (UTC+11 in March) 11 Mar 12:00 UTC is already the 11th at 23:00; a schedule due
    10 Mar 20:00 UTC (the 11th, 07:00 local) is due today, not overdue."""
    world = await om_world(timezone="Australia/Sydney")
    clock.set_now(at(1, 2))
    pump = (await create_asset(client, world))["id"]
    await create_schedule(client, world, pump, nextDueAt="2026-03-10T20:00:00Z")
    await create_template(client, world, {**FIRE_WALK, "nextDueAt": "2026-03-10T12:00:00Z"})
    clock.set_now(NOW)
    found = await dashboard(client, world)
    assert found["overdueMaintenance"] == 0
    assert found["maintenanceDueThisWeek"] == 1
    assert found["overdueInspections"] == 1  # 10 Mar 23:00 local, the day before


async def test_fixed_number_of_queries_at_1_and_500_rows(client: httpx.AsyncClient) -> None:
    world = await om_world()
    await issue(client, world, at(3, 1))
    clock.set_now(NOW)
    url = om_url(world.project, "/fm-dashboard")
    with QueryCounter() as one:
        assert (await client.get(url, headers=world.member.headers)).json()["openWorkOrders"] == 1
    rows = [
        {
            "id": new_id(),
            "project_id": world.project.id,
            "workspace_id": world.workspace.id,
            "number": 1000 + n,
            "title": f"Bulk {n}",
            "status": "OPEN",
            "priority": "MEDIUM",
            "issue_kind": "WORK_ORDER",
            "work_order_type": "CORRECTIVE",
            "checklist": [],
            "created_at": at(2, 1),
            "updated_at": at(2, 1),
        }
        for n in range(499)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(Issue), rows)
        await db.commit()
    with QueryCounter() as many:
        found = (await client.get(url, headers=world.member.headers)).json()
    assert found["openWorkOrders"] == 500
    assert found["workOrderBacklogOver30Days"] == 499
    assert many.count == one.count
