from plumbline.models import Project
from tests.factories import make_world

VALID = "2026-12-31T17:00:00Z"


def proposals(project: Project, suffix: str = "") -> str:
    return f"/api/v1/projects/{project.id}/proposals{suffix}"


async def material(client, world, **body):  # type: ignore[no-untyped-def]
    payload = {"name": "Tile adhesive", "unit": "bag", "unitPrice": "18.40"} | body
    response = await client.post(
        f"/api/v1/workspaces/{world.workspace.id}/materials",
        json=payload,
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_an_item_naming_a_material_copies_what_it_does_not_give(client, world):
    adhesive = await material(client, world)
    grout = await material(client, world, name="Grout", unit="kg", unitPrice="3.00")
    items = [
        {"materialId": adhesive["id"], "quantity": 10},
        {"materialId": grout["id"], "quantity": 2, "name": "Grout, grey", "rate": "2.50"},
        {"name": "Labour", "quantity": 8, "unit": "h", "rate": 45},
    ]
    response = await client.post(
        proposals(world.project),
        json={"title": "Bathroom tiling", "validUntil": VALID, "items": items},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    got = response.json()["items"]
    assert (got[0]["name"], got[0]["unit"], got[0]["rate"], got[0]["lineTotal"]) == (
        "Tile adhesive", "bag", "18.40", "184.00",
    )  # fmt: skip
    assert got[0]["materialId"] == adhesive["id"]
    assert (got[1]["name"], got[1]["unit"], got[1]["rate"]) == ("Grout, grey", "kg", "2.50")
    assert response.json()["subtotal"] == "549.00"
    patched = await client.patch(
        proposals(world.project, f"/{response.json()['id']}"),
        json={"items": [{"materialId": grout["id"], "quantity": 4}]},
        headers=world.member.headers,
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["items"][0]["lineTotal"] == "12.00"


async def test_unknown_or_foreign_materials_and_missing_prices_are_refused(client, world):
    other = await make_world()
    foreign = await material(client, other)
    cases = [
        ({"materialId": foreign["id"], "quantity": 1}, "items.0.materialId"),
        ({"materialId": "nope", "quantity": 1}, "items.0.materialId"),
        ({"name": "No rate", "quantity": 1}, "items.0"),
    ]
    for item, field in cases:
        response = await client.post(
            proposals(world.project),
            json={"title": "T", "validUntil": VALID, "items": [item]},
            headers=world.member.headers,
        )
        assert response.status_code == 400, response.text
        assert any(d["field"].startswith(field) for d in response.json()["details"]), (
            response.json()
        )
    listed = await client.get(proposals(world.project), headers=world.member.headers)
    assert listed.json() == []
