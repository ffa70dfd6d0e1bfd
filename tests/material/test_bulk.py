"""POST /workspaces/{w}/materials/bulk: the material rules each record goes through (MANAGER+
session users, SKUs, prices), and the keys a CSV import leaves alone. The behaviour every bulk
route shares is in tests/records/test_bulk_upsert.py."""

from __future__ import annotations

from typing import Any

import httpx

from plumbline.kit.ids import new_id
from tests.factories import World, audit_entries, create_api_key, key_headers


def _url(world: World, suffix: str = "") -> str:
    return f"/api/v1/workspaces/{world.workspace.id}/materials{suffix}"


async def _bulk(
    client: httpx.AsyncClient, world: World, records: list[dict[str, Any]], headers: Any
) -> httpx.Response:
    return await client.post(_url(world, "/bulk"), json={"records": records}, headers=headers)


def _results(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


async def test_managers_only_and_no_api_keys(client: httpx.AsyncClient, world: World) -> None:
    records = [{"externalId": f"M-{new_id()}", "name": "Cable", "unit": "m"}]
    member = await _bulk(client, world, records, world.member.headers)
    assert member.status_code == 403, member.text
    raw, _ = await create_api_key(world.project, ["issues:write", "om:write"])
    keyed = await _bulk(client, world, records, key_headers(raw))
    assert keyed.status_code == 403
    assert keyed.json()["error"] == "API keys are accepted on project-scoped routes only"
    assert [
        r["status"] for r in _results(await _bulk(client, world, records, world.manager.headers))
    ] == ["created"]


async def test_each_record_follows_the_material_rules(
    client: httpx.AsyncClient, world: World
) -> None:
    """SKUs stay unique (409 for the record written second: in externalId order); a price
    written another way is the same price; a PATCH's refusal of a null currency holds."""
    sku, prefix = f"SKU-{new_id()}", new_id()
    second, first = f"{prefix}-B", f"{prefix}-A"
    records = [
        {"externalId": first, "name": "Cable", "unit": "m", "sku": sku, "unitPrice": 1.25},
        {"externalId": second, "name": "Duct", "unit": "m", "sku": sku},
    ]
    results = _results(await _bulk(client, world, records, world.manager.headers))
    assert [r["status"] for r in results] == ["created", "error"], results
    assert results[1]["error"]["error"] == "Another material of this workspace has this SKU"
    listed = await client.get(
        _url(world), params={"externalId": first}, headers=world.manager.headers
    )
    assert listed.json()[0]["unitPrice"] == "1.25"
    again = [records[0] | {"unitPrice": "1.25"}, records[0] | {"externalId": second, "sku": None}]
    results = _results(await _bulk(client, world, again, world.manager.headers))
    assert [r["status"] for r in results] == ["unchanged", "created"]
    nulled = [again[1] | {"currency": None}]
    [result] = _results(await _bulk(client, world, nulled, world.manager.headers))
    assert result["error"]["code"] == "VALIDATION_FAILED"
    assert "currency cannot be null" in result["error"]["error"]


async def test_a_csv_import_keeps_the_keys(client: httpx.AsyncClient, world: World) -> None:
    key, sku = f"M-{new_id()}", f"SKU-{new_id()}"
    records = [{"externalId": key, "name": "Cable", "unit": "m", "sku": sku}]
    [created] = _results(await _bulk(client, world, records, world.manager.headers))
    imported = await client.post(
        _url(world, "/import"),
        content=f"name,unit,sku,unitPrice\r\nCable 2,m,{sku},3\r\n".encode(),
        headers=world.manager.headers | {"Content-Type": "text/csv"},
    )
    assert imported.status_code == 200, imported.text
    assert imported.json()["results"][0]["id"] == created["id"]
    listed = await client.get(
        _url(world), params={"externalId": key}, headers=world.manager.headers
    )
    [material] = listed.json()
    assert (material["name"], material["unitPrice"]) == ("Cable 2", "3.00")
    *_, entry = await audit_entries(created["id"])
    assert entry.changes == {"name": ["Cable", "Cable 2"], "unitPrice": ["0.00", "3.00"]}
