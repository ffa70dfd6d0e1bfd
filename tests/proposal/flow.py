"""What the lifecycle, portal and reminder tests share: a sendable proposal, the e-mailed link,
a real PNG."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from typing import Any

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.models import Notification, Project
from tests.factories import World, link_in, read_mails

VALID = "2026-12-31T17:00:00Z"
BASE = "http://127.0.0.1:8000"


def url(project: Project, suffix: str = "") -> str:
    return f"/api/v1/projects/{project.id}/proposals{suffix}"


def client_email() -> str:
    return f"client-{new_id()}@example.com"


async def sendable(client, world: World, **extra: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    body = {
        "title": "Level 3 fit-out",
        "validUntil": VALID,
        "clientName": "Dana Client",
        "clientEmail": client_email(),
        "items": [{"name": "Drywall", "quantity": "10", "unit": "m2", "rate": "12.50"}],
    } | extra
    response = await client.post(url(world.project), json=body, headers=world.member.headers)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def send(
    client, world: World, proposal: dict[str, Any], action: str = "send"
) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = await client.post(
        url(world.project, f"/{proposal['id']}/{action}"), headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def portal_path(outbox: Path, email: str) -> str:
    """The portal's JSON path for the link in the last e-mail written to ``email`` (the link
    opens the proposal page, ``/portal/proposals/{token}``)."""
    link = link_in(read_mails(outbox, to=email)[-1])
    assert link.startswith(BASE + "/portal/proposals/"), link
    return "/api/v1/public/proposals/" + link.rsplit("/", 1)[1]


async def sent_with_link(
    client, world: World, outbox: Path, **extra: Any
) -> tuple[dict[str, Any], str]:  # type: ignore[no-untyped-def]
    proposal = await sendable(client, world, **extra)
    await send(client, world, proposal)
    return proposal, portal_path(outbox, proposal["clientEmail"])


def png(width: int = 4, height: int = 2) -> bytes:
    """A real (grayscale) PNG, built chunk by chunk."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(b"\x00" + bytes([0, 255] * width)[:width] for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def data_url(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode()


async def notifications(user_id: str, kind: str) -> list[Notification]:
    async with database.sessionmaker() as db:
        query = select(Notification).where(
            Notification.user_id == user_id, Notification.kind == kind
        )
        return list((await db.execute(query)).scalars())
