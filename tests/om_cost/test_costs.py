"""Parts, the stock ledger and work-order costs through HTTP (issue 29, items 1-2)."""

from __future__ import annotations

import asyncio
import csv
import io
from decimal import Decimal

import httpx
from sqlalchemy import func, select

from plumbline.db import database
from plumbline.models import AuditLog, Notification, StockLevel, StockMove, WorkOrderCost
from tests.factories import QueryCounter, make_world, om_url, om_world
from tests.om_cost.helpers import (
    costs_url,
    create_location,
    create_part,
    create_work_order,
    ok,
    receive,
    stock_of,
    ws_url,
)


async def _ledger_sum(part_id: str, location_id: str) -> Decimal:
    async with database.sessionmaker() as db:
        query = select(func.coalesce(func.sum(StockMove.quantity), 0)).where(
            StockMove.part_id == part_id, StockMove.location_id == location_id
        )
        return Decimal((await db.execute(query)).scalar_one())


async def _lines(work_order_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(WorkOrderCost.work_order_id == work_order_id)
        return int((await db.execute(query)).scalar_one())


async def test_a_work_order_consumes_parts_logs_labour_and_other_costs_to_the_cent(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    part = await create_part(client, world, unitCost="12.3456", minQuantity="2")
    room = await create_location(client, world)
    await receive(client, world, part["id"], room["id"], 5)
    order = await create_work_order(client, world)
    url = costs_url(world, order["id"])

    # 3 x 12.3456 = 37.0368 -> 37.04
    used = await ok(
        await client.post(
            url + "/parts",
            json={"partId": part["id"], "locationId": room["id"], "quantity": 3},
            headers=world.member.headers,
        )
    )
    assert used["amount"] == "37.04" and used["quantity"] == "3.00"
    # a non-stock part bought for the job: 2.5 x 3.3333 = 8.33325 -> 8.33
    bought = {"description": "Fuse 10A", "quantity": "2.5", "unitCost": "3.3333"}
    assert (await ok(await client.post(url + "/parts", json=bought, headers=world.member.headers)))[
        "amount"
    ] == "8.33"
    # 95 minutes at 47.50/h = 75.2083... -> 75.21
    labour = {
        "startedAt": "2026-03-02T08:00:00Z",
        "endedAt": "2026-03-02T09:35:00Z",
        "hourlyRate": "47.50",
    }
    logged = await ok(await client.post(url + "/labour", json=labour, headers=world.member.headers))
    assert (logged["minutes"], logged["amount"], logged["userId"]) == (95, "75.21", world.member.id)
    other = {"category": "TRAVEL", "description": "Van", "amount": "19.99"}
    await ok(await client.post(url + "/other", json=other, headers=world.member.headers))

    answer = await ok(await client.get(url, headers=world.member.headers))
    # 37.04 + 8.33 = 45.37; total 45.37 + 75.21 + 19.99 = 140.57
    assert answer["totals"] == {
        "parts": "45.37",
        "labour": "75.21",
        "other": "19.99",
        "total": "140.57",
    }
    assert answer["currency"] == "USD" and len(answer["lines"]) == 4

    # stock: 5 received, 3 used; below the minimum of 2? 2 left: not below
    assert (await stock_of(client, world, room["id"]))[part["id"]] == "2.00"
    assert await _ledger_sum(part["id"], room["id"]) == 2
    ledger = await ok(
        await client.get(
            om_url(world.project, f"/stock/moves?workOrderId={order['id']}"),
            headers=world.member.headers,
        )
    )
    assert [(m["kind"], m["quantity"], m["balanceAfter"]) for m in ledger] == [
        ("CONSUMPTION", "-3.00", "2.00")
    ]

    # reopening a completed work order keeps its costs
    issue_url = f"/api/v1/projects/{world.project.id}/issues/{order['id']}"
    for status in ("RESOLVED", "OPEN"):
        await ok(
            await client.patch(issue_url, json={"status": status}, headers=world.manager.headers)
        )
    assert (await ok(await client.get(url, headers=world.member.headers)))["totals"]["total"] == (
        "140.57"
    )

    # deleting the part line returns its stock (a RETURN in the ledger)
    response = await client.delete(url + f"/{used['id']}", headers=world.member.headers)
    assert response.status_code == 200, response.text
    assert (await stock_of(client, world, room["id"]))[part["id"]] == "5.00"
    assert await _ledger_sum(part["id"], room["id"]) == 5
    assert (await ok(await client.get(url, headers=world.member.headers)))["totals"]["total"] == (
        "103.53"
    )
    async with database.sessionmaker() as db:
        query = select(AuditLog.action).where(AuditLog.project_id == world.project.id)
        actions = set((await db.execute(query)).scalars())
    assert {
        "work_order_cost.created",
        "work_order_cost.deleted",
        "stock_move.created",
    } <= actions


async def test_ten_concurrent_consumptions_of_the_last_three_units_let_three_win(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    part = await create_part(client, world)
    room = await create_location(client, world)
    await receive(client, world, part["id"], room["id"], 3)
    order = await create_work_order(client, world)
    body = {"partId": part["id"], "locationId": room["id"], "quantity": 1}

    async def consume() -> httpx.Response:
        return await client.post(
            costs_url(world, order["id"], "/parts"), json=body, headers=world.member.headers
        )

    answers = await asyncio.gather(*(consume() for _ in range(10)))
    statuses = sorted(response.status_code for response in answers)
    assert statuses == [200] * 3 + [409] * 7, [r.text for r in answers]
    refused = next(r.json() for r in answers if r.status_code == 409)
    assert refused["code"] == "INSUFFICIENT_STOCK"
    assert refused["partId"] == part["id"] and refused["available"] == "0.00"
    assert "V-belt" in refused["error"]
    assert (await stock_of(client, world, room["id"]))[part["id"]] == "0.00"
    assert await _ledger_sum(part["id"], room["id"]) == 0
    assert await _lines(order["id"]) == 3


async def test_bad_input_is_refused_naming_the_field_and_writes_nothing(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    part = await create_part(client, world)
    room = await create_location(client, world)
    await receive(client, world, part["id"], room["id"], 2)
    order = await create_work_order(client, world)
    url = costs_url(world, order["id"])
    stock = {"partId": part["id"], "locationId": room["id"]}
    cases = [
        ("/parts", stock | {"quantity": -1}, 400, "quantity"),
        ("/parts", stock | {"quantity": "1.5"}, 400, "quantity"),
        ("/parts", stock | {"quantity": 3}, 409, None),
        (
            "/labour",
            {"startedAt": "2026-03-02T10:00:00Z", "endedAt": "2026-03-02T09:00:00Z"}
            | {"hourlyRate": 40},
            400,
            "endedAt",
        ),
        (
            "/labour",
            {"startedAt": "2026-03-02T08:00:00Z", "endedAt": "2026-03-03T08:00:01Z"}
            | {"hourlyRate": 40},
            400,
            "endedAt",
        ),
        ("/labour", {"minutes": 30}, 400, "hourlyRate"),
        ("/other", {"category": "OTHER", "description": "x", "amount": "1.005"}, 400, "amount"),
    ]
    for suffix, body, status, field in cases:
        response = await client.post(url + suffix, json=body, headers=world.member.headers)
        assert response.status_code == status, (suffix, body, response.text)
        answer = response.json()
        assert set(answer) >= {"error", "code"}
        if field is not None:
            assert field in [d["field"].split(".")[-1] for d in answer["details"]], answer
    assert await _lines(order["id"]) == 0
    assert await _ledger_sum(part["id"], room["id"]) == 2

    # a timer started twice: 409, one running timer
    started = await ok(
        await client.post(
            url + "/timer/start", json={"hourlyRate": 60}, headers=world.member.headers
        )
    )
    assert started["running"] is True and started["amount"] == "0.00"
    twice = await client.post(
        url + "/timer/start", json={"hourlyRate": 60}, headers=world.member.headers
    )
    assert twice.status_code == 409 and twice.json()["code"] == "TIMER_RUNNING"
    stopped = await ok(await client.post(url + "/timer/stop", headers=world.member.headers))
    assert stopped["running"] is False and stopped["endedAt"] is not None
    again = await client.post(url + "/timer/stop", headers=world.member.headers)
    assert again.status_code == 409


async def test_the_member_rate_prices_labour_and_adjustments_need_a_manager(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    rate_url = ws_url(world, f"/labour-rates/{world.member.id}")
    refused = await client.put(rate_url, json={"hourlyRate": "50"}, headers=world.member.headers)
    assert refused.status_code == 403
    await ok(await client.put(rate_url, json={"hourlyRate": "50"}, headers=world.manager.headers))
    order = await create_work_order(client, world)
    entry = await ok(
        await client.post(
            costs_url(world, order["id"], "/labour"),
            json={"minutes": 45},
            headers=world.member.headers,
        )
    )
    assert (entry["hourlyRate"], entry["amount"]) == ("50.00", "37.50")

    part = await create_part(client, world, minQuantity="4")
    room = await create_location(client, world)
    count = {"partId": part["id"], "locationId": room["id"], "onHand": 3, "reason": "Count"}
    adjust = om_url(world.project, "/stock/adjustments")
    assert (await client.post(adjust, json=count, headers=world.member.headers)).status_code == 403
    moved = await ok(await client.post(adjust, json=count, headers=world.manager.headers))
    assert (moved["kind"], moved["quantity"], moved["balanceAfter"]) == (
        "ADJUSTMENT",
        "3.00",
        "3.00",
    )
    # below its minimum of 4: the managers are told once (not the one who made the change)
    async with database.sessionmaker() as db:
        query = select(Notification.user_id).where(
            Notification.kind == "LOW_STOCK", Notification.project_id == world.project.id
        )
        told = set((await db.execute(query)).scalars())
    assert told == {world.owner.id, world.admin.id}
    rows = await ok(
        await client.get(
            om_url(world.project, "/stock?belowMinimum=true"), headers=world.member.headers
        )
    )
    assert [row["partId"] for row in rows] == [part["id"]]

    # transfers move stock between locations in two ledger entries
    other = await create_location(client, world, "Plant room")
    moved_pair = await ok(
        await client.post(
            om_url(world.project, "/stock/transfers"),
            json={
                "partId": part["id"],
                "fromLocationId": room["id"],
                "toLocationId": other["id"],
                "quantity": 2,
            },
            headers=world.member.headers,
        )
    )
    assert [m["kind"] for m in moved_pair] == ["TRANSFER_OUT", "TRANSFER_IN"]
    async with database.sessionmaker() as db:
        levels = (
            await db.execute(select(StockLevel.on_hand).where(StockLevel.part_id == part["id"]))
        ).scalars()
        assert sorted(Decimal(v) for v in levels) == [1, 2]


async def test_another_workspace_sees_nothing(client: httpx.AsyncClient) -> None:
    world = await om_world()
    part = await create_part(client, world)
    order = await create_work_order(client, world)
    other = await make_world()
    assert (
        await client.get(ws_url(world, f"/parts/{part['id']}"), headers=other.owner.headers)
    ).status_code == 404
    assert (
        await client.get(costs_url(world, order["id"]), headers=other.owner.headers)
    ).status_code == 404


async def test_the_lists_take_a_fixed_number_of_statements(client: httpx.AsyncClient) -> None:
    world = await om_world()
    part = await create_part(client, world)
    room = await create_location(client, world)
    order = await create_work_order(client, world)
    paths = [
        om_url(world.project, "/stock/moves"),
        om_url(world.project, "/stock"),
        om_url(world.project, "/costs"),
        om_url(world.project, "/stock-locations"),
        ws_url(world, "/parts"),
        costs_url(world, order["id"]),
    ]

    async def counts() -> list[int]:
        found = []
        for path in paths:
            with QueryCounter() as counter:
                await ok(await client.get(path, headers=world.member.headers))
            found.append(len(counter.statements))
        return found

    await receive(client, world, part["id"], room["id"], 1)
    body = {"partId": part["id"], "locationId": room["id"], "quantity": 1}
    await ok(
        await client.post(
            costs_url(world, order["id"], "/parts"), json=body, headers=world.member.headers
        )
    )
    few = await counts()
    for _ in range(5):
        await create_part(client, world)
        await create_location(client, world)
        await receive(client, world, part["id"], room["id"], 1)
        await ok(
            await client.post(
                costs_url(world, order["id"], "/parts"), json=body, headers=world.member.headers
            )
        )
    assert await counts() == few


async def test_the_change_feed_carries_stock_moves_and_cost_lines_as_the_api_answers_them(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    part = await create_part(client, world)
    room = await create_location(client, world)
    moved = await receive(client, world, part["id"], room["id"], 2)
    order = await create_work_order(client, world)
    other = {"category": "OTHER", "description": "Skip hire", "amount": "80.00"}
    line = await ok(
        await client.post(
            costs_url(world, order["id"], "/other"), json=other, headers=world.member.headers
        )
    )
    page = await ok(
        await client.get(
            f"/api/v1/projects/{world.project.id}/changes",
            params={"types": "stock_move,work_order_cost"},
            headers=world.member.headers,
        )
    )
    assert [(c["type"], c["data"]) for c in page["changes"]] == [
        ("stock_move", moved),
        ("work_order_cost", line),
    ]


async def test_the_ledger_and_the_costs_export_as_csv(client: httpx.AsyncClient) -> None:
    world = await om_world()
    part = await create_part(client, world, name="Belt, V (A42)")
    room = await create_location(client, world)
    await receive(client, world, part["id"], room["id"], 2)
    order = await create_work_order(client, world)
    body = {"partId": part["id"], "locationId": room["id"], "quantity": 1}
    await ok(
        await client.post(
            costs_url(world, order["id"], "/parts"), json=body, headers=world.member.headers
        )
    )
    ledger = await client.get(
        om_url(world.project, "/stock/moves/export.csv"), headers=world.member.headers
    )
    assert ledger.status_code == 200 and ledger.headers["content-type"].startswith("text/csv")
    rows = ledger.text.strip().splitlines()
    assert rows[0].startswith("Date,Kind,Part,SKU,Location,Quantity,Balance after")
    assert [row.split(",")[1] for row in rows[1:]] == ["CONSUMPTION", "RECEIPT"]
    assert '"Belt, V (A42)"' in rows[1] and ",-1.00,1.00," in rows[1]
    costs = await client.get(
        om_url(world.project, "/costs/export.csv"), headers=world.member.headers
    )
    assert costs.status_code == 200
    [header, line] = costs.text.strip().splitlines()
    assert header.startswith("Date,Work order,Asset,Kind")
    assert ",PART," in line and line.endswith(",12.35")  # 1 x 12.3456
    # The issues export carries each work order's totals, and none for a construction issue.
    tile = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": "Cracked tile"},
        headers=world.member.headers,
    )
    assert tile.status_code == 200, tile.text
    issues = await client.get(
        f"/api/v1/projects/{world.project.id}/issues/export.csv", headers=world.member.headers
    )
    exported = {r["id"]: r for r in csv.DictReader(io.StringIO(issues.text))}
    totals = [
        exported[order["id"]][f"{name}Cost"] for name in ("parts", "labour", "other", "total")
    ]
    assert totals == ["12.35", "0.00", "0.00", "12.35"]
    assert [exported[tile.json()["id"]][f"{n}Cost"] for n in ("parts", "total")] == ["", ""]
