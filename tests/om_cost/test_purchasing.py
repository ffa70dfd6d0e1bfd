"""Vendors and purchase orders through HTTP (issue 29, item 3): statuses, approval by MANAGER+,
receiving into stock through the ledger, the PDF e-mailed to the vendor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.models import StockMove
from tests.factories import QueryCounter, World, make_world, om_url, om_world, read_mails
from tests.om_cost.helpers import create_location, create_part, ok, stock_of


async def create_vendor(client: httpx.AsyncClient, world: World, **body: Any) -> dict[str, Any]:
    payload = {"name": "Acme Spares", "contactName": "Rita Ramos"} | body
    return await ok(  # type: ignore[no-any-return]
        await client.post(
            f"/api/v1/workspaces/{world.workspace.id}/vendors",
            json=payload,
            headers=world.manager.headers,
        )
    )


async def test_an_order_is_approved_ordered_partly_received_and_received(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world = await om_world()
    address = f"orders-{new_id()}@acme.example.com"
    vendor = await create_vendor(client, world, email=address)
    belt = await create_part(client, world, name="V-belt A42", unitCost="12.50")
    filt = await create_part(
        client, world, name="Filter 592x592", unitCost="8.3333", wholeUnits=True
    )
    room = await create_location(client, world)
    url = om_url(world.project, "/purchase-orders")
    body = {
        "vendorId": vendor["id"],
        "locationId": room["id"],
        "notes": "Deliver to the loading bay",
        "lines": [{"partId": belt["id"], "quantity": 4}, {"partId": filt["id"], "quantity": 10}],
    }
    assert (await client.post(url, json=body, headers=world.member.headers)).status_code == 403
    order = await ok(await client.post(url, json=body, headers=world.manager.headers))
    # 4 x 12.50 = 50.00; 10 x 8.3333 = 83.333 -> 83.33; total 133.33
    assert (order["status"], order["total"], order["reference"]) == ("DRAFT", "133.33", "PO-0001")
    assert [line["amount"] for line in order["lines"]] == ["50.00", "83.33"]
    one = f"{url}/{order['id']}"

    refused = await client.post(one + "/approve", headers=world.member.headers)
    assert refused.status_code == 403
    early = await client.post(
        one + "/receive",
        json={"lines": [{"lineId": "x", "quantity": 1}]},
        headers=world.manager.headers,
    )
    assert early.status_code == 409 and early.json()["code"] == "INVALID_TRANSITION"
    approved = await ok(await client.post(one + "/approve", headers=world.manager.headers))
    assert approved["status"] == "APPROVED" and approved["approvedBy"] == world.manager.id
    ordered = await ok(await client.post(one + "/order", json={}, headers=world.manager.headers))
    assert ordered["status"] == "ORDERED" and ordered["emailedAt"] is not None

    [mail] = read_mails(outbox, to=address)
    assert mail["Subject"].startswith("Purchase order PO-0001")
    [pdf] = [p for p in mail.iter_attachments() if p.get_content_type() == "application/pdf"]
    document = pdf.get_content()
    assert document.startswith(b"%PDF")
    served = await client.get(one + "/pdf", headers=world.member.headers)
    assert served.status_code == 200 and served.headers["content-type"] == "application/pdf"
    # deterministic: the same order, the same bytes (dated by the order, not the clock)
    assert served.content == (await client.get(one + "/pdf", headers=world.member.headers)).content

    belt_line, filt_line = (line["id"] for line in ordered["lines"])
    over = {"lines": [{"lineId": belt_line, "quantity": 5}]}
    response = await client.post(one + "/receive", json=over, headers=world.manager.headers)
    assert response.status_code == 400, response.text
    assert response.json()["details"][0]["field"] == "lines.0.quantity"
    fraction = {"lines": [{"lineId": filt_line, "quantity": "2.5"}]}
    response = await client.post(one + "/receive", json=fraction, headers=world.manager.headers)
    assert response.status_code == 400
    assert await stock_of(client, world, room["id"]) == {}

    part_body = {
        "lines": [{"lineId": belt_line, "quantity": 4}, {"lineId": filt_line, "quantity": 6}]
    }
    partly = await ok(
        await client.post(one + "/receive", json=part_body, headers=world.manager.headers)
    )
    assert partly["status"] == "PARTIALLY_RECEIVED"
    assert [line["receivedQuantity"] for line in partly["lines"]] == ["4.00", "6.00"]
    assert (await client.post(one + "/cancel", headers=world.manager.headers)).status_code == 409
    rest = {"lines": [{"lineId": filt_line, "quantity": 4}]}
    received = await ok(
        await client.post(one + "/receive", json=rest, headers=world.manager.headers)
    )
    assert received["status"] == "RECEIVED" and received["receivedAt"] is not None

    assert await stock_of(client, world, room["id"]) == {belt["id"]: "4.00", filt["id"]: "10.00"}
    async with database.sessionmaker() as db:
        query = select(StockMove.kind, StockMove.part_id, StockMove.quantity).where(
            StockMove.purchase_order_id == order["id"]
        )
        moves = sorted((kind, part, int(q)) for kind, part, q in await db.execute(query))
    assert moves == sorted(
        [("RECEIPT", belt["id"], 4), ("RECEIPT", filt["id"], 6), ("RECEIPT", filt["id"], 4)]
    )
    listed = await ok(await client.get(url + "?status=RECEIVED", headers=world.member.headers))
    assert [row["id"] for row in listed] == [order["id"]]


async def test_vendors_are_kept_by_managers_and_hidden_from_other_workspaces(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    vendors = f"/api/v1/workspaces/{world.workspace.id}/vendors"
    refused = await client.post(vendors, json={"name": "X"}, headers=world.member.headers)
    assert refused.status_code == 403
    vendor = await create_vendor(client, world)
    assert (await ok(await client.get(vendors, headers=world.member.headers)))[0]["id"] == vendor[
        "id"
    ]
    other = await make_world()
    hidden = await client.get(f"{vendors}/{vendor['id']}", headers=other.owner.headers)
    assert hidden.status_code == 404
    # an order naming another workspace's vendor: 400 naming vendorId
    theirs = await om_world()
    room = await create_location(client, theirs)
    part = await create_part(client, theirs)
    body = {
        "vendorId": vendor["id"],
        "locationId": room["id"],
        "lines": [{"partId": part["id"], "quantity": 1}],
    }
    response = await client.post(
        om_url(theirs.project, "/purchase-orders"), json=body, headers=theirs.manager.headers
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "vendorId"


async def test_the_vendor_order_and_downtime_lists_take_a_fixed_number_of_statements(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    room = await create_location(client, world)
    part = await create_part(client, world)
    asset = (
        await ok(
            await client.post(
                om_url(world.project, "/assets"),
                json={"tag": f"P-{new_id()[-6:]}", "name": "Pump"},
                headers=world.manager.headers,
            )
        )
    )["id"]
    paths = [
        f"/api/v1/workspaces/{world.workspace.id}/vendors",
        om_url(world.project, "/purchase-orders"),
        om_url(world.project, f"/assets/{asset}/downtime"),
    ]

    async def make(n: int) -> None:
        vendor = await create_vendor(client, world)
        body = {
            "vendorId": vendor["id"],
            "locationId": room["id"],
            "lines": [{"partId": part["id"], "quantity": 1}],
        }
        await ok(
            await client.post(
                om_url(world.project, "/purchase-orders"), json=body, headers=world.manager.headers
            )
        )
        down = {
            "startedAt": f"2026-02-{n + 1:02d}T08:00:00Z",
            "endedAt": f"2026-02-{n + 1:02d}T09:00:00Z",
        }
        await ok(
            await client.post(
                om_url(world.project, f"/assets/{asset}/downtime"),
                json=down,
                headers=world.member.headers,
            )
        )

    async def counts() -> list[int]:
        found = []
        for path in paths:
            with QueryCounter() as counter:
                await ok(await client.get(path, headers=world.member.headers))
            found.append(len(counter.statements))
        return found

    await make(0)
    few = await counts()
    for n in range(1, 6):
        await make(n)
    assert await counts() == few
