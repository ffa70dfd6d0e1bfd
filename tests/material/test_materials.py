import asyncio
import csv
import io
from decimal import Decimal
from typing import Any

from sqlalchemy import func, insert, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Material, Workspace
from tests.factories import (
    QueryCounter,
    audit_entries,
    create_api_key,
    external,
    key_headers,
    make_world,
    set_workspace,
)


def url(workspace: Workspace, suffix: str = "") -> str:
    return f"/api/v1/workspaces/{workspace.id}/materials{suffix}"


async def create(client, world, headers=None, **body):  # type: ignore[no-untyped-def]
    payload = {"name": "Plasterboard 12.5mm", "unit": "sheet"} | body
    response = await client.post(
        url(world.workspace), json=payload, headers=headers or world.manager.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


async def material_count(workspace: Workspace) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(Material.workspace_id == workspace.id)
        return int((await db.execute(query)).scalar_one())


async def test_create_with_name_and_unit_only(client, world):
    body = await create(client, world)
    assert body["workspaceId"] == world.workspace.id
    assert body["unitPrice"] == "0.00"
    assert body["currency"] == "USD"
    assert body["sku"] is None
    assert body["createdBy"] == world.manager.id
    entries = await audit_entries(body["id"])
    assert [e.action for e in entries] == ["material.created"]


async def test_create_update_delete_round_trip(client, world):
    body = await create(
        client, world, unitPrice="12.5", currency="EUR", sku="PB-125", category="Drywall",
        supplier="Gyproc",
    )  # fmt: skip
    assert body["unitPrice"] == "12.50"
    assert body["currency"] == "EUR"
    patched = await client.patch(
        url(world.workspace, f"/{body['id']}"),
        json={"unitPrice": 14, "supplier": None},
        headers=world.admin.headers,
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["unitPrice"] == "14.00"
    assert patched.json()["supplier"] is None
    assert patched.json()["sku"] == "PB-125"
    listed = await client.get(url(world.workspace), headers=world.member.headers)
    assert listed.json() == [patched.json()]
    deleted = await client.delete(
        url(world.workspace, f"/{body['id']}"), headers=world.owner.headers
    )
    assert deleted.json() == {"ok": True}
    assert await material_count(world.workspace) == 0
    again = await client.delete(url(world.workspace, f"/{body['id']}"), headers=world.owner.headers)
    assert again.status_code == 404
    actions = [e.action for e in await audit_entries(body["id"])]
    assert actions == ["material.created", "material.updated", "material.deleted"]


async def test_bad_input_is_400_naming_the_field(client, world):
    cases = [
        ({"unit": "m"}, "name"),
        ({"name": "X"}, "unit"),
        ({"name": "X", "unit": "m", "unitPrice": "1.234"}, "unitPrice"),
        ({"name": "X", "unit": "m", "unitPrice": -1}, "unitPrice"),
        ({"name": "X", "unit": "m", "unitPrice": "1e20"}, "unitPrice"),
        ({"name": "X", "unit": "m", "currency": "usd"}, "currency"),
        ({"name": "X" * 201, "unit": "m"}, "name"),
    ]
    for body, field in cases:
        response = await client.post(url(world.workspace), json=body, headers=world.manager.headers)
        assert response.status_code == 400, (body, response.text)
        assert field in [d["field"] for d in response.json()["details"]], response.json()
    material = await create(client, world)
    refused = await client.patch(
        url(world.workspace, f"/{material['id']}"), json={"name": None},
        headers=world.manager.headers,
    )  # fmt: skip
    assert refused.status_code == 400
    assert await material_count(world.workspace) == 1


async def test_sku_unique_per_workspace(client, world):
    first = await create(client, world, sku="CEM-25")
    taken = await client.post(
        url(world.workspace), json={"name": "Other", "unit": "bag", "sku": "CEM-25"},
        headers=world.manager.headers,
    )  # fmt: skip
    assert taken.status_code == 409
    assert taken.json()["code"] == "CONFLICT"
    assert taken.json()["sku"] == "CEM-25"
    second = await create(client, world, sku="CEM-50")
    clash = await client.patch(
        url(world.workspace, f"/{second['id']}"), json={"sku": "CEM-25"},
        headers=world.manager.headers,
    )  # fmt: skip
    assert clash.status_code == 409
    same = await client.patch(
        url(world.workspace, f"/{first['id']}"), json={"sku": "CEM-25", "unit": "bag"},
        headers=world.manager.headers,
    )  # fmt: skip
    assert same.status_code == 200
    other = await make_world()
    assert (await create(client, other, sku="CEM-25"))["sku"] == "CEM-25"


async def test_concurrent_creates_of_one_sku_leave_one(client, world):
    sku = f"RACE-{new_id()}"
    responses = await asyncio.gather(
        *(
            client.post(
                url(world.workspace),
                json={"name": f"M{i}", "unit": "m", "sku": sku},
                headers=world.manager.headers,
            )
            for i in range(4)
        )
    )
    assert sorted(r.status_code for r in responses) == [200, 409, 409, 409]
    assert await material_count(world.workspace) == 1


async def test_filters(client, world):
    await create(client, world, name="Copper pipe 15mm", unit="m", category="Plumbing")
    await create(client, world, name="PVC pipe 110mm", unit="m", category="Drainage")
    await create(client, world, name="Cable 2.5mm", unit="m", category="Electrical",
                 supplier="Pipewright Ltd")  # fmt: skip
    await create(client, world, name="100% silicone", unit="tube", sku="SIL_1")

    async def names(query: str) -> list[str]:
        response = await client.get(url(world.workspace, query), headers=world.member.headers)
        assert response.status_code == 200, response.text
        return sorted(m["name"] for m in response.json())

    assert await names("?q=PIPE") == ["Cable 2.5mm", "Copper pipe 15mm", "PVC pipe 110mm"]
    assert await names("?category=Plumbing") == ["Copper pipe 15mm"]
    assert await names("?q=pipe&category=Drainage") == ["PVC pipe 110mm"]
    assert await names("?q=100%25") == ["100% silicone"]
    assert await names("?q=L_1") == ["100% silicone"]
    assert await names("?q=_") == ["100% silicone"]


async def test_roles_plans_and_api_keys(client, world, monkeypatch):
    refused = await client.post(
        url(world.workspace), json={"name": "X", "unit": "m"}, headers=world.member.headers
    )
    assert refused.status_code == 403
    assert (await client.get(url(world.workspace), headers=world.member.headers)).status_code == 200
    contractor = await external(world, "CONTRACTOR")
    assert (await client.get(url(world.workspace), headers=contractor.headers)).status_code == 403
    stranger = await make_world()
    assert (
        await client.get(url(world.workspace), headers=stranger.owner.headers)
    ).status_code == 404
    material = await create(client, world)
    foreign = await client.patch(
        url(stranger.workspace, f"/{material['id']}"), json={"name": "Y"},
        headers=stranger.owner.headers,
    )  # fmt: skip
    assert foreign.status_code == 404
    raw, _ = await create_api_key(world.project, scopes=["schedule:read"])
    keyed = await client.get(url(world.workspace), headers=key_headers(raw))
    assert keyed.status_code == 403
    assert keyed.json()["error"] == "API keys are accepted on project-scoped routes only"
    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="team", subscription_status="active")
    assert (await client.get(url(world.workspace), headers=world.member.headers)).status_code == 200
    gated = await client.post(
        url(world.workspace), json={"name": "X", "unit": "m"}, headers=world.manager.headers
    )
    assert gated.status_code == 402
    assert gated.json()["requiredPlan"] == "pro"
    await set_workspace(world.workspace.id, plan="pro")
    await create(client, world, name="Pro")


async def insert_materials(workspace: Workspace, count: int) -> None:
    now = clock.now()
    rows = [
        {"id": new_id(), "workspace_id": workspace.id, "name": f"M{i}", "unit": "m",
         "unit_price": Decimal("1.50"), "currency": "USD", "sku": f"S{i}", "category": "Bulk",
         "created_at": now, "updated_at": now}
        for i in range(count)
    ]  # fmt: skip
    async with database.sessionmaker() as db:
        await db.execute(insert(Material), rows)
        await db.commit()


async def test_list_runs_a_fixed_number_of_queries(client):
    counts = []
    for size in (1, 500):
        world = await make_world()
        await insert_materials(world.workspace, size)
        with QueryCounter() as counter:
            response = await client.get(
                url(world.workspace, "?limit=500"), headers=world.member.headers
            )
        assert response.status_code == 200
        assert len(response.json()) == size
        assert response.json()[0]["unitPrice"] == "1.50"
        counts.append(counter.count)
    assert counts[0] == counts[1]


def csv_body(*rows: str) -> bytes:
    return ("\r\n".join(rows) + "\r\n").encode()


async def post_csv(client, world, body: bytes, query: str = ""):  # type: ignore[no-untyped-def]
    return await client.post(
        url(world.workspace, f"/import{query}"),
        content=body,
        headers={**world.manager.headers, "Content-Type": "text/csv"},
    )


async def test_import_dry_run_then_real_then_update_by_sku(client, world):
    await create(client, world, name="Old name", sku="B-1", unitPrice="1.00")
    body = csv_body(
        "Name,UNIT,unitPrice,sku,category,ignored",
        "Brick,each,0.45,B-1,Masonry,x",
        "",
        "Mortar,bag,7.9,M-1,Masonry,y",
        '"Sand, sharp",t,30,,Aggregates,z',
    )
    dry = await post_csv(client, world, body, "?dryRun=true")
    assert dry.status_code == 200, dry.text
    assert dry.json()["dryRun"] is True
    assert [(r["row"], r["ok"], r["action"]) for r in dry.json()["results"]] == [
        (2, True, "updated"), (4, True, "created"), (5, True, "created"),
    ]  # fmt: skip
    assert await material_count(world.workspace) == 1
    done = await post_csv(client, world, body)
    assert done.status_code == 200, done.text
    assert (done.json()["created"], done.json()["updated"]) == (2, 1)
    listed = {
        m["name"]: m
        for m in (await client.get(url(world.workspace), headers=world.member.headers)).json()
    }
    assert sorted(listed) == ["Brick", "Mortar", "Sand, sharp"]
    assert listed["Brick"]["unitPrice"] == "0.45"
    assert listed["Mortar"]["unitPrice"] == "7.90"
    assert listed["Sand, sharp"]["sku"] is None
    ids = {r["id"] for r in done.json()["results"]}
    assert ids == {m["id"] for m in listed.values()}


async def test_import_is_all_or_nothing(client, world):
    body = csv_body(
        "name,unit,unitPrice,sku,currency",
        "Good,m,1,G-1,USD",
        ",m,1,,",
        "Bad price,m,abc,,",
        "Dup,m,1,G-1,",
        "Lower,m,1,,eur",
    )
    response = await post_csv(client, world, body)
    assert response.status_code == 400, response.text
    results = response.json()["results"]
    assert [(r["row"], r["ok"]) for r in results] == [
        (2, True), (3, False), (4, False), (5, False), (6, False),
    ]  # fmt: skip
    assert "name" in results[1]["errors"][0]
    assert "unitPrice" in results[2]["errors"][0]
    assert "row 2" in results[3]["errors"][0]
    assert "currency" in results[4]["errors"][0]
    assert [d["field"] for d in response.json()["details"]] == [
        "rows.3",
        "rows.4",
        "rows.5",
        "rows.6",
    ]
    assert await material_count(world.workspace) == 0


async def test_import_refuses_bad_files(client, world):
    cases: list[tuple[bytes, dict[str, Any], int]] = [
        (b"", {}, 400),
        (b"name,price\r\nX,1\r\n", {}, 400),
        (b"name,unit\r\n", {}, 400),
        ("name,unit\r\nCaf\u00e9,m\r\n".encode("latin-1"), {}, 400),
        (b"name,unit\r\nX,m\r\n", {"Content-Type": "application/json"}, 415),
    ]
    for body, headers, status in cases:
        response = await client.post(
            url(world.workspace, "/import"), content=body,
            headers={**world.manager.headers, "Content-Type": "text/csv", **headers},
        )  # fmt: skip
        assert response.status_code == status, (body, response.text)
    member = await client.post(
        url(world.workspace, "/import"), content=b"name,unit\r\nX,m\r\n",
        headers={**world.member.headers, "Content-Type": "text/csv"},
    )  # fmt: skip
    assert member.status_code == 403
    assert await material_count(world.workspace) == 0


async def test_export_round_trips_through_import(client, world):
    await create(client, world, name="=SUM(A1:A9)", unit="m", sku="F-1", unitPrice="2.5")
    await create(client, world, name="Timber 47x100", unit="m", category="Carpentry")
    response = await client.get(url(world.workspace, "/export.csv"), headers=world.member.headers)
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert {r["name"] for r in rows} == {"'=SUM(A1:A9)", "Timber 47x100"}
    assert {r["unitPrice"] for r in rows} == {"2.50", "0.00"}
    other = await make_world()
    imported = await post_csv(client, other, response.content)
    assert imported.status_code == 200, imported.text
    assert imported.json()["created"] == 2
    assert await material_count(other.workspace) == 2
