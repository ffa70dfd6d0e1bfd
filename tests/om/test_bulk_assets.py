"""POST /projects/{p}/om/assets/bulk: the asset rules each record goes through (MANAGER+ and
om:write, tags, parents, meters keeping their readings). The behaviour every bulk route shares
is in tests/records/test_bulk_upsert.py."""

from __future__ import annotations

from typing import Any

import httpx

from plumbline.kit.ids import new_id
from tests.factories import (
    World,
    audit_entries,
    create_api_key,
    create_asset,
    key_headers,
    om_url,
    om_world,
)


async def _bulk(
    client: httpx.AsyncClient, world: World, records: list[dict[str, Any]], headers: Any
) -> httpx.Response:
    return await client.post(
        om_url(world.project, "/assets/bulk"), json={"records": records}, headers=headers
    )


def _results(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


async def test_managers_and_om_write_keys_only(client: httpx.AsyncClient) -> None:
    world = await om_world()
    records = [{"externalId": f"A-{new_id()}", "tag": f"T-{new_id()}", "name": "Pump"}]
    member = await _bulk(client, world, records, world.member.headers)
    assert member.status_code == 403, member.text
    reader, _ = await create_api_key(world.project, ["om:read", "issues:write"])
    refused = await _bulk(client, world, records, key_headers(reader))
    assert refused.json()["error"] == "API key missing scope: om:write"
    writer, key = await create_api_key(world.project, ["om:write"])
    [result] = _results(await _bulk(client, world, records, key_headers(writer)))
    assert result["status"] == "created"
    [entry] = await audit_entries(result["id"])
    assert entry.actor_key_id == key.id


async def test_each_record_follows_the_asset_rules(client: httpx.AsyncClient) -> None:
    """Tags stay unique (409 for that record), parents are live assets of the project, and
    meters sent again keep their last reading (unchanged)."""
    world = await om_world()
    other = await create_asset(client, world)
    parent, child, clash = (f"A-{new_id()}-{n}" for n in range(3))
    meters = [{"type": "RUN_HOURS", "unit": "h"}]
    records = [
        {"externalId": parent, "tag": f"P-{parent}", "name": "AHU", "meters": meters},
        {"externalId": clash, "tag": other["tag"], "name": "Twin"},
    ]
    results = _results(await _bulk(client, world, records, world.manager.headers))
    assert [r["status"] for r in results] == ["created", "error"]
    assert results[1]["error"] == {
        "error": "Another asset of this project has this tag",
        "code": "CONFLICT",
    }
    parent_id = results[0]["id"]
    reading = await client.post(
        om_url(world.project, f"/assets/{parent_id}/meter-readings"),
        json={"meterType": "RUN_HOURS", "value": 120},
        headers=world.member.headers,
    )
    assert reading.status_code == 200, reading.text
    records = [
        records[0],
        {"externalId": child, "tag": f"C-{child}", "name": "Fan", "parentAssetId": parent_id},
    ]
    results = _results(await _bulk(client, world, records, world.manager.headers))
    assert [r["status"] for r in results] == ["unchanged", "created"]
    stored = await client.get(
        om_url(world.project, f"/assets/{parent_id}"), headers=world.manager.headers
    )
    assert stored.json()["meters"][0]["lastReading"] == 120.0
    looped = [records[0] | {"parentAssetId": results[1]["id"]}]
    [result] = _results(await _bulk(client, world, looped, world.manager.headers))
    assert result["error"]["details"][0] == {
        "field": "parentAssetId",
        "message": "an asset cannot sit beneath itself",
    }
