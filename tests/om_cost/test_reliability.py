"""Asset downtime and reliability through HTTP (issue 29, item 4); the figures' definitions and
a worked example are in docs/maintenance-cost.md."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import httpx
from sqlalchemy import insert

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Issue, WorkOrderCost
from tests.factories import QueryCounter, World, create_asset, make_world, om_url, om_world
from tests.om_cost.helpers import costs_url, create_work_order, ok

WINDOW = "from=2026-01-01T00:00:00Z&to=2026-01-11T00:00:00Z"  # 240 hours


async def _down(
    client: httpx.AsyncClient, world: World, asset_id: str, start: str, end: str, planned: bool
) -> httpx.Response:
    body = {"startedAt": start, "endedAt": end, "planned": planned, "reason": "Trip"}
    return await client.post(
        om_url(world.project, f"/assets/{asset_id}/downtime"),
        json=body,
        headers=world.member.headers,
    )


async def test_mttr_mtbf_and_availability_equal_the_figures_worked_out_by_hand(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    chiller = await create_asset(client, world, tag=f"CH-{new_id()[-6:]}", name="Chiller 1")
    outages = [
        # began before the window: its 2 hours inside count as downtime, not as a failure
        ("2025-12-31T22:00:00Z", "2026-01-01T02:00:00Z", False),
        ("2026-01-02T00:00:00Z", "2026-01-02T06:00:00Z", False),  # failure 1: 6 h
        ("2026-01-04T08:00:00Z", "2026-01-04T12:00:00Z", True),  # planned: 4 h
        ("2026-01-07T10:00:00Z", "2026-01-07T20:00:00Z", False),  # failure 2: 10 h
    ]
    for start, end, planned in outages:
        await ok(await _down(client, world, chiller["id"], start, end, planned))

    # Overlapping another interval: 409 naming the field, nothing written.
    overlap = await _down(
        client, world, chiller["id"], "2026-01-02T05:00:00Z", "2026-01-02T07:00:00Z", False
    )
    assert overlap.status_code == 409, overlap.text
    assert overlap.json()["code"] == "DOWNTIME_OVERLAP" and overlap.json()["field"] == "startedAt"
    backwards = await _down(
        client, world, chiller["id"], "2026-01-09T05:00:00Z", "2026-01-09T04:00:00Z", False
    )
    assert backwards.status_code == 400
    assert backwards.json()["details"][0]["field"] == "endedAt"

    # Labour inside the window (2 h at 40.00 = 80.00) counts; an amount incurred today not.
    order = await create_work_order(client, world, assetId=chiller["id"])
    labour = {
        "startedAt": "2026-01-02T01:00:00Z",
        "endedAt": "2026-01-02T03:00:00Z",
        "hourlyRate": "40",
    }
    await ok(
        await client.post(
            costs_url(world, order["id"], "/labour"), json=labour, headers=world.member.headers
        )
    )
    other = {"category": "CONTRACTOR", "description": "Call-out", "amount": "250.00"}
    await ok(
        await client.post(
            costs_url(world, order["id"], "/other"), json=other, headers=world.member.headers
        )
    )

    answer = await ok(
        await client.get(
            om_url(world.project, f"/assets/{chiller['id']}/reliability?{WINDOW}"),
            headers=world.member.headers,
        )
    )
    # By hand, over the 240-hour window:
    #   downtime  = 2 (carried in) + 6 + 4 (planned) + 10 = 22 h; planned 4 h, unplanned 18 h
    #   failures  = 2 (the unplanned intervals that began inside the window)
    #   MTTR      = (6 + 10) / 2 = 8 h
    #   up time   = 240 - 22 = 218 h;  MTBF = 218 / 2 = 109 h
    #   availability = 218 / 240 = 0.908333... -> 0.9083
    assert answer["periodHours"] == 240
    assert answer["downtimeHours"] == 22
    assert answer["plannedDowntimeHours"] == 4
    assert answer["unplannedDowntimeHours"] == 18
    assert answer["failures"] == 2
    assert answer["mttrHours"] == 8
    assert answer["mtbfHours"] == 109
    assert answer["availability"] == 0.9083
    assert answer["cost"] == {"parts": "0.00", "labour": "80.00", "other": "0.00", "total": "80.00"}

    report = await ok(
        await client.get(
            om_url(world.project, f"/reliability?{WINDOW}"), headers=world.member.headers
        )
    )
    [row] = [r for r in report["assets"] if r["assetId"] == chiller["id"]]
    assert row == answer
    exported = await client.get(
        om_url(world.project, f"/reliability/export.csv?{WINDOW}"), headers=world.member.headers
    )
    assert exported.status_code == 200
    assert f"{chiller['tag']},Chiller 1,2026-01-01T00:00:00.000Z" in exported.text
    assert "0.9083,2,8.0,109.0,0.00,80.00,0.00,80.00" in exported.text

    other_world = await make_world()
    hidden = await client.get(
        om_url(world.project, f"/assets/{chiller['id']}/reliability"),
        headers=other_world.owner.headers,
    )
    assert hidden.status_code == 404


async def test_a_work_order_takes_its_asset_down_and_resolving_it_brings_it_up(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    pump = await create_asset(client, world, name="Pump")
    order = await create_work_order(client, world, assetId=pump["id"])
    url = om_url(world.project, f"/assets/{pump['id']}/downtime")
    down = await ok(
        await client.post(
            url,
            json={"workOrderId": order["id"], "reason": "Seal leak"},
            headers=world.member.headers,
        )
    )
    assert down["status"] == "OFFLINE" and down["endedAt"] is None
    second = await client.post(url, json={}, headers=world.member.headers)
    assert second.status_code == 409
    issue_url = f"/api/v1/projects/{world.project.id}/issues/{order['id']}"
    await ok(
        await client.patch(issue_url, json={"status": "RESOLVED"}, headers=world.member.headers)
    )
    [interval] = await ok(await client.get(url, headers=world.member.headers))
    assert interval["status"] == "ONLINE" and interval["endedAt"] is not None


async def _work_orders(world: World, asset_id: str, count: int, first: int) -> None:
    """``count`` work orders on the asset, each with a cost line (written directly: the
    statement count is the point, not the route that makes them)."""
    now = clock.now() - timedelta(days=1)
    issues, lines = [], []
    for n in range(count):
        issue_id = new_id()
        issues.append(
            {
                "id": issue_id,
                "project_id": world.project.id,
                "workspace_id": world.workspace.id,
                "number": first + n,
                "title": f"WO {n}",
                "status": "OPEN",
                "priority": "MEDIUM",
                "issue_kind": "WORK_ORDER",
                "asset_id": asset_id,
                "checklist": [],
                "created_at": now,
                "updated_at": now,
            }
        )
        lines.append(
            {
                "id": new_id(),
                "project_id": world.project.id,
                "workspace_id": world.workspace.id,
                "work_order_id": issue_id,
                "kind": "OTHER",
                "category": "OTHER",
                "amount": Decimal("1.25"),
                "running": False,
                "incurred_at": now,
                "created_at": now,
                "updated_at": now,
            }
        )
    async with database.sessionmaker() as db:
        await db.execute(insert(Issue), issues)
        await db.execute(insert(WorkOrderCost), lines)
        await db.commit()


async def test_the_report_takes_the_same_statements_for_10_and_1000_work_orders(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    asset = await create_asset(client, world)

    async def run() -> tuple[int, dict[str, str]]:
        with QueryCounter() as counter:
            report = await ok(
                await client.get(
                    om_url(world.project, "/reliability"), headers=world.member.headers
                )
            )
        return len(counter.statements), report["assets"][0]["cost"]

    await _work_orders(world, asset["id"], 10, 100_000)
    few, cost = await run()
    assert cost["total"] == "12.50"
    await _work_orders(world, asset["id"], 990, 200_000)
    many, cost = await run()
    assert cost["total"] == "1250.00"
    assert many == few, (few, many)
