"""Workspace logo and the e-mail icon."""

from __future__ import annotations

import struct
import zlib

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit.storage import get_storage
from plumbline.models import Workspace
from tests.factories import make_world


def png(width: int = 2, height: int = 2) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(b"\0" + b"\x10\x20\x30" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


async def _logo_key(workspace_id: str) -> str | None:
    async with database.sessionmaker() as db:
        return (
            await db.execute(select(Workspace.logo_key).where(Workspace.id == workspace_id))
        ).scalar_one()


async def test_logo_upload_public_read_replace_and_remove(client, world):
    url = f"/api/v1/workspaces/{world.workspace.id}/logo"
    public = f"/api/v1/public/workspaces/{world.workspace.id}/logo"
    assert (await client.get(public)).status_code == 404
    image = png()
    response = await client.put(
        url, content=image, headers={**world.admin.headers, "Content-Type": "image/png"}
    )
    assert response.status_code == 200, response.text
    assert response.json() == {
        "workspaceId": world.workspace.id,
        "logo": public,
        "logoContentType": "image/png",
    }
    got = await client.get(public)
    assert got.status_code == 200 and got.content == image
    assert got.headers["content-type"] == "image/png"
    assert "public" in got.headers["cache-control"]
    assert (
        await client.get(public, headers={"If-None-Match": got.headers["etag"]})
    ).status_code == 304
    first_key = await _logo_key(world.workspace.id)
    jpeg = b"\xff\xd8\xff\xe0" + b"\0" * 64
    replaced = await client.put(
        url, content=jpeg, headers={**world.owner.headers, "Content-Type": "image/jpeg"}
    )
    assert replaced.status_code == 200
    assert (await client.get(public)).content == jpeg
    assert first_key is not None and await get_storage().head(first_key) is None
    removed = await client.delete(url, headers=world.admin.headers)
    assert removed.status_code == 200 and removed.json() == {"ok": True}
    assert (await client.get(public)).status_code == 404
    assert (await client.delete(url, headers=world.admin.headers)).status_code == 404
    workspace = await client.get(
        f"/api/v1/workspaces/{world.workspace.id}", headers=world.admin.headers
    )
    assert workspace.json()["logo"] is None


async def test_logo_sent_as_octet_stream_takes_its_type_from_its_bytes(client, world):
    # What generated clients send: the OpenAPI declares one media type for the body.
    url = f"/api/v1/workspaces/{world.workspace.id}/logo"
    public = f"/api/v1/public/workspaces/{world.workspace.id}/logo"
    octets = {**world.admin.headers, "Content-Type": "application/octet-stream"}
    webp = b"RIFF\0\0\0\0WEBPVP8 " + b"\0" * 32
    response = await client.put(url, content=webp, headers=octets)
    assert response.status_code == 200, response.text
    assert response.json()["logoContentType"] == "image/webp"
    got = await client.get(public)
    assert got.content == webp and got.headers["content-type"] == "image/webp"
    key = await _logo_key(world.workspace.id)
    for body in (b"<svg/>", b"\0" * 16):
        refused = await client.put(url, content=body, headers=octets)
        assert refused.status_code == 415 and refused.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    mismatch = await client.put(
        url, content=png(), headers={**world.admin.headers, "Content-Type": "image/jpeg"}
    )
    assert mismatch.status_code == 415
    assert mismatch.json()["error"] == "The body is not a JPG image"
    assert await _logo_key(world.workspace.id) == key


async def test_logo_refuses_bad_types_bodies_and_roles(client, world):
    url = f"/api/v1/workspaces/{world.workspace.id}/logo"
    svg = await client.put(
        url, content=b"<svg/>", headers={**world.admin.headers, "Content-Type": "image/svg+xml"}
    )
    assert svg.status_code == 415
    liar = await client.put(
        url, content=b"not a png", headers={**world.admin.headers, "Content-Type": "image/png"}
    )
    assert liar.status_code == 415
    empty = await client.put(
        url, content=b"", headers={**world.admin.headers, "Content-Type": "image/png"}
    )
    assert empty.status_code == 400
    too_big = await client.put(
        url,
        content=png() + b"\0" * 2_000_000,
        headers={**world.admin.headers, "Content-Type": "image/png"},
    )
    assert too_big.status_code == 413
    large_but_allowed = await client.put(
        url,
        content=png() + b"\0" * 1_500_000,
        headers={**world.admin.headers, "Content-Type": "image/png"},
    )
    assert large_but_allowed.status_code == 200
    assert (await client.delete(url, headers=world.admin.headers)).status_code == 200
    manager = await client.put(
        url, content=png(), headers={**world.manager.headers, "Content-Type": "image/png"}
    )
    assert manager.status_code == 403
    anonymous = await client.put(url, content=png(), headers={"Content-Type": "image/png"})
    assert anonymous.status_code == 401
    stranger = await make_world()
    foreign = await client.put(
        url, content=png(), headers={**stranger.owner.headers, "Content-Type": "image/png"}
    )
    assert foreign.status_code == 404
    assert (await client.delete(url, headers=stranger.owner.headers)).status_code == 404
    assert await _logo_key(world.workspace.id) is None


async def test_public_logo_of_unknown_workspace_is_404(client):
    assert (await client.get("/api/v1/public/workspaces/nope/logo")).status_code == 404


async def test_email_icon_is_a_png(client):
    response = await client.get("/api/v1/public/brand/email-icon.png")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.content.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", response.content[16:24])
    assert (width, height) == (64, 64)
    cached = await client.get(
        "/api/v1/public/brand/email-icon.png", headers={"If-None-Match": response.headers["etag"]}
    )
    assert cached.status_code == 304
