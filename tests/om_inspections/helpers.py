"""Inspection tests: an O&M project, assets, templates, runs and photos, through HTTP where
a route exists."""

from __future__ import annotations

import hashlib
import io
from typing import Any

import httpx
from PIL import Image

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Asset
from tests.factories import World, make_world, set_project

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


async def om_world(plan: str = "trial") -> World:
    world = await make_world(plan)
    await set_project(world.project.id, operations_mode=True)
    return world


async def create_asset(world: World, *, tag: str | None = None, name: str = "Fire pump P-1") -> str:
    now = clock.now()
    asset = Asset(
        id=new_id(),
        project_id=world.project.id,
        workspace_id=world.workspace.id,
        tag=tag or f"FP-{new_id()[-6:]}",
        name=name,
        location="Basement pump room",
        status="ACTIVE",
        meters=[],
        created_at=now,
        updated_at=now,
    )
    async with database.sessionmaker() as db:
        db.add(asset)
        await db.commit()
    return asset.id


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
