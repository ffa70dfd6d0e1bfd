"""One resource of each kind that has a single-resource GET and a PATCH, made through the API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from tests.factories import World, create_asset, create_schedule, om_url


@dataclass
class Resource:
    kind: str
    url: str  # its GET, PATCH (and DELETE) path
    change: dict[str, Any]  # a PATCH body that changes what the GET answers
    deletable: bool = True


async def _post(client: httpx.AsyncClient, world: World, path: str, body: dict[str, Any]) -> str:
    response = await client.post(path, json=body, headers=world.owner.headers)
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


async def resources(client: httpx.AsyncClient, world: World) -> list[Resource]:
    """Needs a world in operations mode (``om_world``)."""
    project = f"/api/v1/projects/{world.project.id}"

    async def record(collection: str, body: dict[str, Any]) -> str:
        return f"{project}/{collection}/" + await _post(
            client, world, f"{project}/{collection}", body
        )

    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"])
    template = await record(
        "om/inspection-templates",
        {"name": "Fire walk", "frequency": "MONTHLY", "items": [{"label": "Exit clear"}]},
    )
    run = await record("om/inspection-runs", {"templateId": template.rsplit("/", 1)[1]})
    offer = {
        "title": "Roof works",
        "validUntil": "2099-01-01T00:00:00Z",
        "clientEmail": "client@example.com",
        "items": [{"name": "Membrane", "quantity": 1, "rate": 10}],
    }
    return [
        Resource("issue", await record("issues", {"title": "Leak"}), {"title": "Leak, level 2"}),
        Resource("rfi", await record("rfi", {"title": "Beam size"}), {"title": "Beam depth"}),
        Resource("punch", await record("punch", {"title": "Paint"}), {"title": "Paint, door 3"}),
        Resource(
            "field report", await record("field-reports", {"title": "Day 1"}), {"title": "Day 2"}
        ),
        Resource("proposal", await record("proposals", offer), {"title": "Roof and gutters"}),
        Resource("asset", om_url(world.project, f"/assets/{asset['id']}"), {"name": "AHU 2"}),
        Resource(
            "maintenance schedule",
            om_url(world.project, f"/maintenance/{schedule['id']}"),
            {"title": "Belt check"},
            deletable=False,
        ),
        Resource("inspection template", template, {"name": "Fire walk, east"}),
        Resource("inspection run", run, {"signedBy": "Ada Admin"}),
        Resource("project", project, {"name": "Tower B"}),
        Resource("workspace", f"/api/v1/workspaces/{world.workspace.id}", {"name": "Renamed"}),
    ]
