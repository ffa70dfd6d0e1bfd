"""Assets and meters through HTTP: every field, tag uniqueness, parents, filters, readings,
guarded soft delete, and the list's fixed query count."""

from datetime import UTC, datetime

from sqlalchemy import insert

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Asset
from tests.factories import (
    QueryCounter,
    audit_entries,
    create_asset,
    create_schedule,
    om_url,
    om_world,
)

FULL = {
    "name": "Chiller 1",
    "category": "HVAC",
    "manufacturer": "Trane",
    "model": "CVHF",
    "serialNumber": "SN-001",
    "location": "Roof plant room",
    "installDate": "2020-05-01",
    "warrantyExpires": "2030-05-01T10:00:00Z",
    "status": "ACTIVE",
    "meters": [
        {"type": "RUN_HOURS", "unit": "h"},
        {"type": "TEMPERATURE", "unit": "C", "cumulative": False},
    ],
}


async def test_create_read_update_delete_with_every_field(client):
    world = await om_world()
    tag = f"CH-{new_id()}"
    asset = await create_asset(client, world, tag=tag, **FULL)
    assert asset["tag"] == tag
    assert asset["projectId"] == world.project.id
    assert asset["warrantyExpires"] == "2030-05-01"
    assert asset["meters"] == [
        {
            "type": "RUN_HOURS",
            "unit": "h",
            "cumulative": True,
            "lastReading": None,
            "lastReadingAt": None,
        },
        {
            "type": "TEMPERATURE",
            "unit": "C",
            "cumulative": False,
            "lastReading": None,
            "lastReadingAt": None,
        },
    ]
    url = om_url(world.project, f"/assets/{asset['id']}")
    got = await client.get(url, headers=world.member.headers)
    assert got.json() == asset
    patched = await client.patch(
        url, json={"status": "INACTIVE", "location": None}, headers=world.manager.headers
    )
    assert patched.status_code == 200, patched.text
    assert (patched.json()["status"], patched.json()["location"]) == ("INACTIVE", None)
    assert patched.json()["name"] == "Chiller 1"
    deleted = await client.delete(url, headers=world.manager.headers)
    assert deleted.json() == {"ok": True}
    assert (await client.get(url, headers=world.member.headers)).status_code == 404
    listed = await client.get(om_url(world.project, "/assets"), headers=world.member.headers)
    assert listed.json() == []
    actions = [entry.action for entry in await audit_entries(asset["id"])]
    assert actions == ["asset.created", "asset.updated", "asset.deleted"]


async def test_members_cannot_set_up_assets(client):
    world = await om_world()
    response = await client.post(
        om_url(world.project, "/assets"),
        json={"tag": "P-1", "name": "Pump"},
        headers=world.member.headers,
    )
    assert response.status_code == 403


async def test_tag_is_unique_among_live_assets(client):
    world = await om_world()
    first = await create_asset(client, world, tag="PUMP-1")
    again = await client.post(
        om_url(world.project, "/assets"),
        json={"tag": "PUMP-1", "name": "Twin"},
        headers=world.manager.headers,
    )
    assert again.status_code == 409
    assert again.json()["code"] == "CONFLICT"
    other = await create_asset(client, world, tag="PUMP-2")
    renamed = await client.patch(
        om_url(world.project, f"/assets/{other['id']}"),
        json={"tag": "PUMP-1"},
        headers=world.manager.headers,
    )
    assert renamed.status_code == 409
    await client.delete(
        om_url(world.project, f"/assets/{first['id']}"), headers=world.manager.headers
    )
    reused = await create_asset(client, world, tag="PUMP-1")
    assert reused["tag"] == "PUMP-1"
    # Another project may use the same tag.
    elsewhere = await om_world()
    assert (await create_asset(client, elsewhere, tag="PUMP-1"))["tag"] == "PUMP-1"


async def test_parents_stay_in_the_project_without_cycles(client):
    world = await om_world()
    top = await create_asset(client, world)
    middle = await create_asset(client, world, parentAssetId=top["id"])
    bottom = await create_asset(client, world, parentAssetId=middle["id"])
    assert bottom["parentAssetId"] == middle["id"]
    cycle = await client.patch(
        om_url(world.project, f"/assets/{top['id']}"),
        json={"parentAssetId": bottom["id"]},
        headers=world.manager.headers,
    )
    assert cycle.status_code == 400
    assert cycle.json()["details"][0]["field"] == "parentAssetId"
    itself = await client.patch(
        om_url(world.project, f"/assets/{top['id']}"),
        json={"parentAssetId": top["id"]},
        headers=world.manager.headers,
    )
    assert itself.status_code == 400
    other = await om_world()
    foreign = await create_asset(client, other)
    response = await client.post(
        om_url(world.project, "/assets"),
        json={"tag": "X", "name": "X", "parentAssetId": foreign["id"]},
        headers=world.manager.headers,
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "parentAssetId"


async def test_filters(client):
    world = await om_world()
    pump = await create_asset(
        client, world, name="Booster pump", category="Plumbing", location="Basement B2"
    )
    fan = await create_asset(
        client,
        world,
        name="Exhaust fan",
        category="HVAC",
        location="Roof",
        status="RETIRED",
        serialNumber="EF-778",
    )
    base = om_url(world.project, "/assets")

    async def ids(query: str) -> list[str]:
        response = await client.get(base + query, headers=world.member.headers)
        assert response.status_code == 200, response.text
        return [row["id"] for row in response.json()]

    assert await ids("") == [fan["id"], pump["id"]]
    assert await ids("?category=Plumbing") == [pump["id"]]
    assert await ids("?status=RETIRED") == [fan["id"]]
    assert await ids("?location=basement") == [pump["id"]]
    assert await ids("?q=ef-77") == [fan["id"]]
    assert await ids("?q=booster") == [pump["id"]]
    assert (
        await client.get(base + "?status=BROKEN", headers=world.member.headers)
    ).status_code == 400


async def test_meter_readings_and_history(client):
    world = await om_world()
    clock.set_now(datetime(2026, 5, 1, 12, tzinfo=UTC))
    asset = await create_asset(client, world, meters=FULL["meters"])
    url = om_url(world.project, f"/assets/{asset['id']}/meter-readings")
    first = await client.post(
        url, json={"meterType": "RUN_HOURS", "value": 100}, headers=world.member.headers
    )
    assert first.status_code == 200, first.text
    assert first.json()["value"] == 100.0
    backwards = await client.post(
        url, json={"meterType": "RUN_HOURS", "value": 99.5}, headers=world.member.headers
    )
    assert backwards.status_code == 400
    assert backwards.json()["details"][0]["field"] == "value"
    earlier = await client.post(
        url,
        json={"meterType": "RUN_HOURS", "value": 150, "readAt": "2026-04-01T00:00:00Z"},
        headers=world.member.headers,
    )
    assert earlier.status_code == 400
    future = await client.post(
        url,
        json={"meterType": "RUN_HOURS", "value": 150, "readAt": "2026-06-01T00:00:00Z"},
        headers=world.member.headers,
    )
    assert future.status_code == 400
    unknown = await client.post(
        url, json={"meterType": "KWH", "value": 1}, headers=world.member.headers
    )
    assert unknown.status_code == 400
    assert unknown.json()["details"][0]["field"] == "meterType"
    clock.set_now(datetime(2026, 5, 2, 12, tzinfo=UTC))
    second = await client.post(
        url, json={"meterType": "RUN_HOURS", "value": 120.25}, headers=world.member.headers
    )
    assert second.status_code == 200
    # A gauge may go down.
    for value in (21.5, 19):
        gauge = await client.post(
            url, json={"meterType": "TEMPERATURE", "value": value}, headers=world.member.headers
        )
        assert gauge.status_code == 200, gauge.text
    read = (
        await client.get(
            om_url(world.project, f"/assets/{asset['id']}"), headers=world.member.headers
        )
    ).json()
    assert read["meters"][0]["lastReading"] == 120.25
    assert read["meters"][0]["lastReadingAt"] == "2026-05-02T12:00:00.000Z"
    assert read["meters"][1]["lastReading"] == 19
    history = await client.get(url + "?meterType=RUN_HOURS", headers=world.member.headers)
    assert [row["value"] for row in history.json()] == [120.25, 100.0]
    everything = await client.get(url, headers=world.member.headers)
    assert len(everything.json()) == 4
    # Redeclaring the meters keeps the readings of the types kept.
    patched = await client.patch(
        om_url(world.project, f"/assets/{asset['id']}"),
        json={"meters": [{"type": "RUN_HOURS", "unit": "hours"}]},
        headers=world.manager.headers,
    )
    assert patched.json()["meters"] == [
        {
            "type": "RUN_HOURS",
            "unit": "hours",
            "cumulative": True,
            "lastReading": 120.25,
            "lastReadingAt": "2026-05-02T12:00:00.000Z",
        }
    ]


async def test_duplicate_meter_types_are_refused(client):
    world = await om_world()
    response = await client.post(
        om_url(world.project, "/assets"),
        json={"tag": "T", "name": "T", "meters": [{"type": "A"}, {"type": "A"}]},
        headers=world.manager.headers,
    )
    assert response.status_code == 400


async def test_delete_with_active_schedules_needs_force(client):
    world = await om_world()
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"])
    url = om_url(world.project, f"/assets/{asset['id']}")
    refused = await client.delete(url, headers=world.manager.headers)
    assert refused.status_code == 409
    assert refused.json()["code"] == "ASSET_IN_USE"
    member = await client.delete(url + "?force=true", headers=world.member.headers)
    assert member.status_code == 403
    forced = await client.delete(url + "?force=true", headers=world.manager.headers)
    assert forced.status_code == 200
    paused = await client.get(
        om_url(world.project, f"/maintenance/{schedule['id']}"), headers=world.member.headers
    )
    assert paused.json()["isActive"] is False


async def test_delete_with_an_open_work_order_needs_force(client):
    world = await om_world()
    asset = await create_asset(client, world)
    order = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": "Leak", "issueKind": "WORK_ORDER", "assetId": asset["id"]},
        headers=world.member.headers,
    )
    assert order.status_code == 200
    url = om_url(world.project, f"/assets/{asset['id']}")
    assert (await client.delete(url, headers=world.manager.headers)).status_code == 409
    await client.patch(
        f"/api/v1/projects/{world.project.id}/issues/{order.json()['id']}",
        json={"status": "CLOSED"},
        headers=world.member.headers,
    )
    assert (await client.delete(url, headers=world.manager.headers)).status_code == 200


async def _insert_assets(project_id: str, workspace_id: str, count: int) -> None:
    now = clock.now()
    rows = [
        {
            "id": new_id(),
            "project_id": project_id,
            "workspace_id": workspace_id,
            "tag": f"A-{n}",
            "name": f"Asset {n}",
            "status": "ACTIVE",
            "meters": [
                {
                    "type": "RUN_HOURS",
                    "unit": "h",
                    "cumulative": True,
                    "lastReading": n,
                    "lastReadingAt": None,
                }
            ],
            "created_at": now,
            "updated_at": now,
        }
        for n in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(Asset), rows)
        await db.commit()


async def test_list_runs_the_same_queries_for_1_and_500(client):
    counts = []
    for size in (1, 500):
        world = await om_world()
        await _insert_assets(world.project.id, world.workspace.id, size)
        with QueryCounter() as counter:
            response = await client.get(
                om_url(world.project, "/assets?limit=500"), headers=world.member.headers
            )
        assert response.status_code == 200, response.text
        assert len(response.json()) == size
        counts.append(counter.count)
    assert counts[0] == counts[1]
