"""Test helpers of the RFI domain: URLs, HTTP shortcuts and direct database reads/tweaks."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import insert

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Rfi, RfiAssignee
from tests.factories import Actor, World


def rfi_url(project_id: str, *parts: str) -> str:
    return "/".join([f"/api/v1/projects/{project_id}/rfi", *parts])


async def create_rfi(
    client: httpx.AsyncClient, project_id: str, headers: dict[str, str], **fields: Any
) -> dict[str, Any]:
    response = await client.post(
        rfi_url(project_id), json={"title": "Beam size at grid C4", **fields}, headers=headers
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def patch_rfi(
    client: httpx.AsyncClient, rfi: dict[str, Any], actor: Actor, **fields: Any
) -> httpx.Response:
    return await client.patch(
        rfi_url(rfi["projectId"], rfi["id"]), json=fields, headers=actor.headers
    )


async def post_message(
    client: httpx.AsyncClient, rfi: dict[str, Any], actor: Actor, body: str = "<p>See detail 5</p>"
) -> dict[str, Any]:
    response = await client.post(
        rfi_url(rfi["projectId"], rfi["id"], "messages"), json={"body": body}, headers=actor.headers
    )
    assert response.status_code == 200, response.text
    message: dict[str, Any] = response.json()
    return message


async def notifications_of(client: httpx.AsyncClient, actor: Actor) -> list[tuple[str, str]]:
    """(kind, href) of the actor's notifications, oldest first, read through the API."""
    response = await client.get("/api/v1/me/notifications", headers=actor.headers)
    assert response.status_code == 200, response.text
    return [(n["kind"], n["href"]) for n in reversed(response.json())]


async def insert_rfis(world: World, count: int, responders: list[str], start: int = 10_000) -> None:
    """Many RFIs written straight to the database (for query counts and exports)."""
    now = clock.now()
    rows = [
        {
            "id": new_id(),
            "project_id": world.project.id,
            "workspace_id": world.workspace.id,
            "rfi_number": start + i,
            "title": f"Bulk RFI {i}",
            "status": "IN_REVIEW",
            "priority": "LOW",
            "manager_id": world.manager.id,
            "issue_ids": [],
            "created_by": world.manager.id,
            "created_at": now,
            "updated_at": now,
        }
        for i in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(Rfi), rows)
        links = [
            {"rfi_id": row["id"], "user_id": user_id, "position": position}
            for row in rows
            for position, user_id in enumerate(responders)
        ]
        if links:
            await db.execute(insert(RfiAssignee), links)
        await db.commit()
