"""A work order's cost totals on the work order itself (issue 29, item 2): the issue read, the
list, the PATCH answer, the entity tag and the change feed carry them; concurrent cost lines sum
exactly; a work order with costs stays one; contractors cost only the work orders they see."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
from alembic import command
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from plumbline.migrate import alembic_config
from tests.factories import external, om_url, om_world
from tests.om_cost.helpers import costs_url, create_work_order, ok

ZERO = {"parts": "0.00", "labour": "0.00", "other": "0.00", "total": "0.00"}


def _issues(world: Any, suffix: str = "") -> str:
    return f"/api/v1/projects/{world.project.id}/issues{suffix}"


async def _other(client: httpx.AsyncClient, world: Any, order_id: str, amount: str) -> Any:
    body = {"category": "CONTRACTOR", "description": "Call-out", "amount": amount}
    return await client.post(
        costs_url(world, order_id, "/other"), json=body, headers=world.member.headers
    )


async def test_the_work_order_answers_its_totals_wherever_it_is_read(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    order = await create_work_order(client, world)
    assert order["costs"] == ZERO
    url = _issues(world, f"/{order['id']}")
    before = await client.get(url, headers=world.member.headers)
    assert before.json()["costs"] == ZERO

    await ok(await _other(client, world, order["id"], "80.00"))
    labour = {"minutes": 90, "hourlyRate": "40.00"}
    await ok(
        await client.post(
            costs_url(world, order["id"], "/labour"), json=labour, headers=world.member.headers
        )
    )
    expected = {"parts": "0.00", "labour": "60.00", "other": "80.00", "total": "140.00"}

    read = await client.get(url, headers=world.member.headers)
    assert read.json()["costs"] == expected
    assert read.json()["updatedAt"] > before.json()["updatedAt"]
    assert read.headers["etag"] != before.headers["etag"]
    costs = await ok(await client.get(costs_url(world, order["id"]), headers=world.member.headers))
    assert costs["totals"] == expected
    listed = await ok(
        await client.get(
            _issues(world), params={"issueKind": "WORK_ORDER"}, headers=world.member.headers
        )
    )
    assert [issue["costs"] for issue in listed] == [expected]
    patched = await ok(
        await client.patch(url, json={"priority": "HIGH"}, headers=world.member.headers)
    )
    assert patched["costs"] == expected

    # the change feed: each change of the totals is an update of the issue, read as the API does
    page = await ok(
        await client.get(
            f"/api/v1/projects/{world.project.id}/changes",
            params={"types": "issue"},
            headers=world.member.headers,
        )
    )
    assert page["changes"][-1]["data"] == await ok(
        await client.get(url, headers=world.member.headers)
    )
    costs_seen = [change["data"]["costs"] for change in page["changes"]]
    assert costs_seen[-1] == expected

    # a construction issue has no costs
    issue = await ok(
        await client.post(_issues(world), json={"title": "Tile"}, headers=world.member.headers)
    )
    assert issue["costs"] is None


async def test_concurrent_cost_lines_sum_exactly(client: httpx.AsyncClient) -> None:
    world = await om_world()
    order = await create_work_order(client, world)
    answers = await asyncio.gather(*(_other(client, world, order["id"], "1.01") for _ in range(10)))
    assert [a.status_code for a in answers] == [200] * 10, [a.text for a in answers]
    read = await ok(
        await client.get(_issues(world, f"/{order['id']}"), headers=world.member.headers)
    )
    assert read["costs"] == {"parts": "0.00", "labour": "0.00", "other": "10.10", "total": "10.10"}

    # deleting a line takes it off the totals
    line = answers[0].json()
    deleted = await client.delete(
        costs_url(world, order["id"], f"/{line['id']}"), headers=world.member.headers
    )
    assert deleted.status_code == 200, deleted.text
    read = await ok(
        await client.get(_issues(world, f"/{order['id']}"), headers=world.member.headers)
    )
    assert read["costs"]["total"] == "9.09"


async def test_a_work_order_with_costs_stays_a_work_order(client: httpx.AsyncClient) -> None:
    world = await om_world()
    order = await create_work_order(client, world)
    url = _issues(world, f"/{order['id']}")
    line = (await _other(client, world, order["id"], "5.00")).json()

    refused = await client.patch(
        url, json={"issueKind": "CONSTRUCTION", "title": "Renamed"}, headers=world.manager.headers
    )
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "WORK_ORDER_HAS_COSTS"
    after = await ok(await client.get(url, headers=world.manager.headers))
    assert (after["issueKind"], after["title"], after["costs"]["total"]) == (
        "WORK_ORDER",
        "Chiller trips",
        "5.00",
    )

    # without its lines it may become a construction issue, and back a work order from zero
    await client.delete(
        costs_url(world, order["id"], f"/{line['id']}"), headers=world.member.headers
    )
    changed = await ok(
        await client.patch(url, json={"issueKind": "CONSTRUCTION"}, headers=world.manager.headers)
    )
    assert changed["costs"] is None
    back = await ok(
        await client.patch(url, json={"issueKind": "WORK_ORDER"}, headers=world.manager.headers)
    )
    assert back["costs"] == ZERO
    assert (await _other(client, world, order["id"], "2.50")).status_code == 200


async def test_a_contractor_costs_only_the_work_orders_they_see(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    contractor = await external(world, "CONTRACTOR")
    theirs = await create_work_order(client, world, assigneeId=contractor.id)
    other = await create_work_order(client, world, title="Boiler leak")
    body = {"category": "TRAVEL", "description": "Van", "amount": "12.00"}

    made = await client.post(
        costs_url(world, theirs["id"], "/other"), json=body, headers=contractor.headers
    )
    assert made.status_code == 200, made.text
    read = await client.get(costs_url(world, theirs["id"]), headers=contractor.headers)
    assert read.status_code == 200 and read.json()["totals"]["total"] == "12.00"

    for response in (
        await client.get(costs_url(world, other["id"]), headers=contractor.headers),
        await client.post(
            costs_url(world, other["id"], "/other"), json=body, headers=contractor.headers
        ),
        await client.post(
            costs_url(world, other["id"], "/timer/start"), json={}, headers=contractor.headers
        ),
    ):
        assert response.status_code == 404, response.text
    untouched = await ok(
        await client.get(costs_url(world, other["id"]), headers=world.member.headers)
    )
    assert untouched["lines"] == [] and untouched["totals"] == ZERO


async def test_the_projects_money_is_the_teams(client: httpx.AsyncClient) -> None:
    world = await om_world()
    contractor = await external(world, "CONTRACTOR")
    theirs = await create_work_order(client, world, assigneeId=contractor.id)
    body = {"category": "TRAVEL", "description": "Van", "amount": "12.00"}
    made = await client.post(
        costs_url(world, theirs["id"], "/other"), json=body, headers=contractor.headers
    )
    assert made.status_code == 200, made.text

    dashboard = om_url(world.project, "/fm-dashboard")
    team = await ok(await client.get(dashboard, headers=world.member.headers))
    assert team["maintenanceCostLast30Days"] == "12.00"
    seen = await ok(await client.get(dashboard, headers=contractor.headers))
    assert seen["maintenanceCostLast30Days"] is None
    for path in ("/costs", "/stock/moves", "/purchase-orders", "/reliability"):
        refused = await client.get(om_url(world.project, path), headers=contractor.headers)
        assert refused.status_code == 403, (path, refused.text)
        assert "project team" in refused.json()["error"]


async def test_the_migration_totals_the_work_orders_that_had_costs(tmp_path: Path) -> None:
    """SQLite (a file of its own, whichever database the suite uses): work orders costed before
    the totals were stored get them; other work orders get zeros, construction issues null."""
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path}/totals.db")
    issue = text(
        "INSERT INTO issues (id, project_id, workspace_id, number, title, status, priority, "
        "issue_kind, checklist, created_at, updated_at) VALUES (:id, 'p', 'w', :n, 'T', 'OPEN', "
        "'MEDIUM', :kind, '[]', '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
    )
    line = text(
        "INSERT INTO om_work_order_costs (id, project_id, workspace_id, work_order_id, kind, "
        "running, amount, incurred_at, created_at, updated_at) VALUES (:id, 'p', 'w', :order, "
        ":kind, 0, :amount, '2026-01-01 00:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
    )
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda s: command.upgrade(alembic_config(s), "0024_merge_heads"))
            for n, (id_, kind) in enumerate(
                (("costed", "WORK_ORDER"), ("bare", "OCCUPANT"), ("tile", "CONSTRUCTION"))
            ):
                await conn.execute(issue, {"id": id_, "n": n, "kind": kind})
            for n, (kind, amount) in enumerate(
                (("PART", "37.04"), ("PART", "8.33"), ("LABOUR", "75.21"), ("OTHER", "19.99"))
            ):
                params = {"id": f"c{n}", "order": "costed", "kind": kind, "amount": amount}
                await conn.execute(line, params)
            await conn.run_sync(lambda s: command.upgrade(alembic_config(s), "heads"))
            rows = await conn.execute(text("SELECT id, costs FROM issues ORDER BY id"))
            found = {id_: costs and json.loads(costs) for id_, costs in rows}
    finally:
        await engine.dispose()
    assert found == {
        "bare": ZERO,
        "costed": {"parts": "45.37", "labour": "75.21", "other": "19.99", "total": "140.57"},
        "tile": None,
    }
