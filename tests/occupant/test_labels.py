"""QR codes and the label sheet of occupant links through HTTP, decoded back with a real
decoder (zxing-cpp): the PNG as served, the SVG rasterised by a real renderer (CairoSVG), the
label sheet's pages rendered by PDFium."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from typing import Any

import cairosvg
import httpx
import pypdfium2
import pytest
import zxingcpp
from PIL import Image
from pypdf import PdfReader

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock, crypto
from plumbline.kit.ids import new_id
from plumbline.models import OccupantLink
from tests.factories import (
    World,
    create_api_key,
    create_asset,
    key_headers,
    om_world,
    set_project,
    set_workspace,
)

NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
POINTS_PER_MM = 72 / 25.4
PAGE_SIZES = {"A4": (210.0, 297.0), "Letter": (215.9, 279.4)}


def links_url(world: World) -> str:
    return f"/api/v1/projects/{world.project.id}/om/occupant-links"


async def make_link(client: httpx.AsyncClient, world: World, **body: Any) -> dict[str, Any]:
    response = await client.post(
        links_url(world), json={"label": "Lobby poster"} | body, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    link: dict[str, Any] = response.json()
    return link


def page_url(token: str) -> str:
    return f"{settings.public_url.rstrip('/')}/portal/occupant/{token}"


def decoded(image: Image.Image) -> list[str]:
    return sorted(result.text for result in zxingcpp.read_barcodes(image))


def sheet_codes(pdf: bytes) -> list[list[str]]:
    """The codes zxing-cpp reads on each page rendered at 200 dpi."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        return [decoded(page.render(scale=200 / 72).to_pil()) for page in document]
    finally:
        document.close()


def page_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


async def qr(client: httpx.AsyncClient, world: World, link_id: str, kind: str) -> httpx.Response:
    url = f"{links_url(world)}/{link_id}/qr.{kind}"
    return await client.get(url, headers=world.manager.headers)


async def sheet(client: httpx.AsyncClient, world: World, **params: Any) -> httpx.Response:
    url = f"{links_url(world)}/labels.pdf"
    return await client.get(url, params=params, headers=world.manager.headers)


async def test_the_png_and_svg_codes_open_the_occupant_page(client: httpx.AsyncClient) -> None:
    world = await om_world()
    link = await make_link(client, world)
    expected = page_url(link["token"])

    png = await qr(client, world, link["id"], "png")
    assert png.status_code == 200, png.text
    assert png.headers["content-type"] == "image/png"
    assert png.headers["cache-control"].startswith("private")
    image = Image.open(io.BytesIO(png.content))
    assert image.format == "PNG" and 250 <= image.width == image.height <= 800
    assert decoded(image) == [expected]

    svg = await qr(client, world, link["id"], "svg")
    assert svg.status_code == 200, svg.text
    assert svg.headers["content-type"] == "image/svg+xml"
    assert svg.text.startswith("<svg") and "Lobby poster" in svg.text
    raster = cairosvg.svg2png(bytestring=svg.content, output_width=600)
    assert decoded(Image.open(io.BytesIO(raster))) == [expected]

    # The same link gives the same image: its ETag answers 304 (after the same checks).
    etag = png.headers["etag"]
    again = await client.get(
        f"{links_url(world)}/{link['id']}/qr.png",
        headers={**world.manager.headers, "If-None-Match": etag},
    )
    assert again.status_code == 304 and again.content == b""
    assert (await qr(client, world, link["id"], "png")).content == png.content
    assert svg.headers["etag"] != etag


async def test_the_label_sheet_carries_every_live_links_code(client: httpx.AsyncClient) -> None:
    world = await om_world()
    await set_workspace(world.workspace.id, name="Harbor Facilities", primary_color="#0B6E4F")
    clock.set_now(NOW)
    made = []
    for number in range(13):
        asset = await create_asset(
            client,
            world,
            tag=f"AHU-{number:02d}",
            name=f"Air handler {number}",
            location=f"Roof plant room {number}",
        )
        made.append(await make_link(client, world, label="QR", assetId=asset["id"]))
    lobby = await make_link(client, world, label="Main lobby")
    revoked = await make_link(client, world, label="Old poster")
    await client.delete(f"{links_url(world)}/{revoked['id']}", headers=world.manager.headers)
    short = await make_link(client, world, label="Pop-up", expiresAt="2026-11-24T00:00:00Z")
    clock.set_now(NOW + timedelta(days=2))

    response = await sheet(client, world)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/pdf"
    pages = sheet_codes(response.content)
    assert len(pages) == 2 and len(pages[0]) == 12 and len(pages[1]) == 2
    live = sorted(page_url(link["token"]) for link in [*made, lobby])
    assert sorted(code for page in pages for code in page) == live
    for gone in (revoked, short):
        assert all(page_url(gone["token"]) not in page for page in pages)

    text = page_text(response.content)
    assert "Harbor Facilities" in text and world.project.name in text
    assert "Air handler 0" in text and "Tag AHU-00 \u00b7 Roof plant room 0" in text
    assert "Main lobby" in text and "Old poster" not in text and "Pop-up" not in text
    # Dated by its newest link, never the wall clock: the same links give the same bytes.
    clock.set_now(NOW + timedelta(days=3))
    assert (await sheet(client, world)).content == response.content


@pytest.mark.parametrize("paper", ["A4", "Letter"])
async def test_the_sheet_is_printed_on_the_paper_asked(
    client: httpx.AsyncClient, paper: str
) -> None:
    world = await om_world()
    asset = await create_asset(client, world, name="Chiller 1", tag="CH-01", location="Roof")
    link = await make_link(client, world, label="QR", assetId=asset["id"])
    # Text the core fonts cannot draw, and too long for a label: its look-alike, cut.
    odd = await create_asset(
        client, world, name="Pompe \u00e0 chaleur \u2014 \u51b7\u5374\u5668 \U0001f525 " * 5
    )
    odd_link = await make_link(client, world, label="<b>", assetId=odd["id"])
    response = await sheet(client, world, paper=paper)
    assert response.status_code == 200, response.text
    assert (
        f'filename="occupant-labels-{paper.lower()}.pdf"' in response.headers["content-disposition"]
    )
    [page] = PdfReader(io.BytesIO(response.content)).pages
    width, height = PAGE_SIZES[paper]
    assert float(page.mediabox.width) == pytest.approx(width * POINTS_PER_MM, abs=0.5)
    assert float(page.mediabox.height) == pytest.approx(height * POINTS_PER_MM, abs=0.5)
    assert sheet_codes(response.content) == [sorted(page_url(x["token"]) for x in (link, odd_link))]
    assert "Pompe \u00e0 chaleur - ??? ? Pompe" in page_text(response.content)


async def test_a_project_without_links_gets_one_page_saying_so(client: httpx.AsyncClient) -> None:
    world = await om_world()
    default = await sheet(client, world)
    assert default.status_code == 200, default.text
    reader = PdfReader(io.BytesIO(default.content))
    assert len(reader.pages) == 1
    assert "No occupant links to print yet" in reader.pages[0].extract_text()
    width, height = PAGE_SIZES["A4"]  # the default paper
    assert float(reader.pages[0].mediabox.height) == pytest.approx(height * POINTS_PER_MM, 0.5)
    assert float(reader.pages[0].mediabox.width) == pytest.approx(width * POINTS_PER_MM, 0.5)

    for bad in ("A3", "a4", "", "Letter; drop table"):
        refused = await sheet(client, world, paper=bad)
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "VALIDATION_FAILED" and refused.json()["error"]


async def test_revoked_expired_and_older_links_have_no_code(client: httpx.AsyncClient) -> None:
    world = await om_world()
    clock.set_now(NOW)
    revoked = await make_link(client, world, label="Withdrawn")
    await client.delete(f"{links_url(world)}/{revoked['id']}", headers=world.manager.headers)
    short = await make_link(client, world, label="Pop-up", expiresAt="2026-11-24T00:00:00Z")
    # A link made before links had printable codes: a random token, only its hash stored.
    older = OccupantLink(
        id=new_id(),
        project_id=world.project.id,
        workspace_id=world.workspace.id,
        label="Printed in 2025",
        token_hash=crypto.sha256_hex(crypto.random_token()),
        created_at=NOW,
    )
    async with database.sessionmaker() as db, db.begin():
        db.add(older)

    for kind in ("png", "svg"):
        assert (await qr(client, world, revoked["id"], kind)).status_code == 404
        assert (await qr(client, world, "no-such-link", kind)).status_code == 404
        assert (await qr(client, world, short["id"], kind)).status_code == 200
        refused = await qr(client, world, older.id, kind)
        assert refused.status_code == 409 and refused.json()["code"] == "LINK_NOT_PRINTABLE"
    clock.set_now(NOW + timedelta(days=1))
    expired = await qr(client, world, short["id"], "png")
    assert expired.status_code == 410 and expired.json()["code"] == "EXPIRED"

    response = await sheet(client, world)
    assert sheet_codes(response.content) == [[]]
    assert "1 link made before links had printable codes" in page_text(response.content)


async def test_who_may_print_the_codes(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = await om_world()
    link = await make_link(client, world)
    paths = [f"{links_url(world)}/{link['id']}/qr.{kind}" for kind in ("png", "svg")]
    paths.append(f"{links_url(world)}/labels.pdf")

    other = await om_world()
    theirs = await make_link(client, other)
    for path in paths:
        assert (await client.get(path, headers=world.member.headers)).status_code == 403
        assert (await client.get(path, headers=other.manager.headers)).status_code == 404
        assert (await client.get(path)).status_code == 401
    # Another project's link through this project's path: as if it did not exist.
    crossed = await qr(client, world, theirs["id"], "png")
    assert crossed.status_code == 404 and crossed.json()["code"] == "NOT_FOUND"

    reader, _ = await create_api_key(world.project, ["om:read"])
    for path in paths:
        assert (await client.get(path, headers=key_headers(reader))).status_code == 200
    wrong, _ = await create_api_key(world.project, ["issues:read"])
    scoped = await client.get(paths[0], headers=key_headers(wrong))
    assert scoped.status_code == 403 and scoped.json()["code"] == "API_KEY_SCOPE"

    await set_project(world.project.id, operations_mode=True, modules={"occupantPortal": False})
    off = await client.get(paths[2], headers=world.manager.headers)
    assert off.status_code == 403 and off.json()["code"] == "MODULE_DISABLED"
    await set_project(world.project.id, operations_mode=True, modules={})

    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="pro", subscription_status="active")
    for path in paths:
        gated = await client.get(path, headers=world.manager.headers)
        assert gated.status_code == 402 and gated.json()["code"] == "PLAN_REQUIRED"
    await set_workspace(world.workspace.id, plan="enterprise")
    assert (await client.get(paths[0], headers=world.manager.headers)).status_code == 200
