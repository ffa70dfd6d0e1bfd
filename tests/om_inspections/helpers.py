"""Inspection tests: templates, runs and photos through HTTP."""

from __future__ import annotations

import hashlib
import io
from typing import Any

import httpx
from PIL import Image

from tests.factories import World, create_asset

FIRE_WALK = {
    "name": "Monthly fire-safety walk",
    "description": "Level 1-3 escape routes, extinguishers, alarm panel.",
    "frequency": "MONTHLY",
    "nextDueAt": "2026-01-31T09:00:00Z",
    "items": [
        {
            "id": "exits",
            "label": "Exit routes clear",
            "type": "PASS_FAIL",
            "onFail": "CREATE_WORK_ORDER",
        },
        {
            "id": "ext",
            "label": "Extinguisher pressure in green",
            "type": "PASS_FAIL",
            "onFail": "CREATE_WORK_ORDER",
        },
        {"id": "panel", "label": "Alarm panel shows no faults", "type": "CHECK"},
        {"id": "temp", "label": "Pump room temperature (C)", "type": "NUMBER", "required": False},
        {"id": "notes", "label": "General remarks", "type": "TEXT", "required": False},
    ],
}


def templates_url(project_id: str) -> str:
    return f"/api/v1/projects/{project_id}/om/inspection-templates"


def runs_url(project_id: str) -> str:
    return f"/api/v1/projects/{project_id}/om/inspection-runs"


async def create_template(
    client: httpx.AsyncClient, world: World, body: dict[str, Any] | None = None
) -> dict[str, Any]:
    response = await client.post(
        templates_url(world.project.id), json=body or FIRE_WALK, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


async def create_run(
    client: httpx.AsyncClient,
    world: World,
    template_id: str,
    *,
    asset_id: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    body = {"templateId": template_id, "assetId": asset_id, **extra}
    response = await client.post(
        runs_url(world.project.id), json=body, headers=headers or world.member.headers
    )
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def png(color: tuple[int, int, int] = (200, 40, 40), size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


async def add_photo(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], data: bytes, name: str = "p.png"
) -> dict[str, Any]:
    """Presign, PUT and complete one photo of the run at ``url``; the photo plus its uploadId."""
    presign = await client.post(
        f"{url}/photos/presign",
        json={"fileName": name, "contentType": "image/png", "sizeBytes": len(data)},
        headers=headers,
    )
    assert presign.status_code == 200, presign.text
    target = presign.json()
    put = await client.request(
        target["method"], target["uploadUrl"], content=data, headers=target["headers"]
    )
    assert put.status_code < 300, put.text
    complete = await client.post(
        f"{url}/photos/complete",
        json={"uploadId": target["uploadId"], "sha256": hashlib.sha256(data).hexdigest()},
        headers=headers,
    )
    assert complete.status_code == 200, complete.text
    return {**complete.json(), "uploadId": target["uploadId"]}


async def asset_id(client: httpx.AsyncClient, world: World, **body: Any) -> str:
    """The id of a new asset of the world's project (in the pump room unless told)."""
    found = await create_asset(client, world, **({"location": "Basement pump room"} | body))
    return str(found["id"])
