"""Parts, stock and work orders of a world's project, made through the API."""

from __future__ import annotations

from typing import Any

import httpx

from plumbline.kit.ids import new_id
from tests.factories import World, om_url


def ws_url(world: World, suffix: str) -> str:
    return f"/api/v1/workspaces/{world.workspace.id}/om{suffix}"


async def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


async def create_part(client: httpx.AsyncClient, world: World, **body: Any) -> dict[str, Any]:
    payload = {"name": "V-belt", "unit": "each", "sku": f"VB-{new_id()}", "unitCost": "12.3456"}
    return await ok(  # type: ignore[no-any-return]
        await client.post(
            ws_url(world, "/parts"), json=payload | body, headers=world.manager.headers
        )
    )


async def create_location(
    client: httpx.AsyncClient, world: World, name: str = "Store room"
) -> dict[str, Any]:
    return await ok(  # type: ignore[no-any-return]
        await client.post(
            om_url(world.project, "/stock-locations"),
            json={"name": f"{name} {new_id()[-6:]}"},
            headers=world.manager.headers,
        )
    )


async def receive(
    client: httpx.AsyncClient, world: World, part_id: str, location_id: str, quantity: Any
) -> dict[str, Any]:
    body = {"partId": part_id, "locationId": location_id, "quantity": quantity}
    return await ok(  # type: ignore[no-any-return]
        await client.post(
            om_url(world.project, "/stock/receipts"), json=body, headers=world.manager.headers
        )
    )


async def create_work_order(client: httpx.AsyncClient, world: World, **body: Any) -> dict[str, Any]:
    payload = {"title": "Chiller trips", "issueKind": "WORK_ORDER"} | body
    return await ok(  # type: ignore[no-any-return]
        await client.post(
            f"/api/v1/projects/{world.project.id}/issues",
            json=payload,
            headers=world.manager.headers,
        )
    )


def costs_url(world: World, work_order_id: str, suffix: str = "") -> str:
    return om_url(world.project, f"/work-orders/{work_order_id}/costs{suffix}")


async def stock_of(client: httpx.AsyncClient, world: World, location_id: str) -> dict[str, str]:
    """partId -> on hand at the location."""
    rows = await ok(
        await client.get(
            om_url(world.project, f"/stock?locationId={location_id}"),
            headers=world.member.headers,
        )
    )
    return {row["partId"]: row["onHand"] for row in rows}
