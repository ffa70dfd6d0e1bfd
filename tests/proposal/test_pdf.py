"""The proposal PDF (PRODUCT §8): what a reader finds in it, determinism, page breaks."""

import io
import re
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

from pypdf import PdfReader

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Proposal
from plumbline.proposal.document import pdf
from tests.factories import make_world
from tests.proposal.test_endpoints import create, item, url


def text_of(document: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(document)).pages)


def png(width: int, height: int) -> bytes:
    """A real PNG: a dark stroke on white, drawn row by row."""
    rows = b"".join(
        b"\x00"
        + b"".join(
            b"\x20\x20\x60" if abs(y - x // 4) < 3 else b"\xff\xff\xff" for x in range(width)
        )
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


async def priced(client: Any, world: Any, **extra: Any) -> dict[str, Any]:
    return await create(
        client,
        world,
        clientName="Zoë Müller-Łukasiewicz",
        clientCompany="Café Crème GmbH",
        clientEmail="zoe@example.com",
        coverLetter="Dear {{client.name}},\n\nOur price for {{project.name}}: {{proposal.total}}.",
        items=[
            item("33.3333", "45.50", name="Drywall partitions"),
            item("2", "1250", name="Suspended ceiling \u2013 open office"),
        ],
        taxPercent="20",
        discount="10",
        **extra,
    )


async def test_pdf_holds_reference_parties_lines_and_total(client, world):
    body = await priced(client, world)
    response = await client.get(
        url(world.project, f"/{body['id']}/pdf"), headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"] == (
        f'inline; filename="{body["reference"]}.pdf"'
    )
    text = text_of(response.content)
    assert body["reference"] in text
    assert "Zoë Müller-Łukasiewicz" in text
    assert "Café Crème GmbH" in text
    assert world.workspace.name in text
    assert world.project.name in text
    assert "Drywall partitions" in text
    assert "Suspended ceiling \u2013 open office" in text
    assert "33.3333" in text
    # 33.3333 x 45.50 = 1516.67; + 2500.00 = 4016.67; tax 803.33; less 10.00 discount.
    assert body["total"] == "4810.00"
    assert "$4,810.00" in text
    assert "$1,516.67" in text
    # The letter's variables are filled in.
    assert "Dear Zoë Müller-Łukasiewicz," in text
    assert "{{" not in text
    # Not accepted yet: the lines to sign.
    assert "Signature" in text
    assert "Accepted online" not in text


async def test_two_renders_are_byte_identical_whatever_the_clock(client, world):
    body = await priced(client, world)
    path = url(world.project, f"/{body['id']}/pdf")
    first = await client.get(path, headers=world.member.headers)
    second = await client.get(path, headers=world.manager.headers)
    clock.set_now(clock.now() + timedelta(days=3, hours=5))
    later = await client.get(path, headers=world.member.headers)
    assert first.status_code == second.status_code == later.status_code == 200
    assert first.content == second.content == later.content
    created = datetime.fromisoformat(body["createdAt"].replace("Z", "+00:00"))
    assert PdfReader(io.BytesIO(first.content)).metadata.creation_date == created.replace(
        microsecond=0
    )


async def test_accepted_proposal_shows_the_acceptance_block(client, world):
    body = await priced(client, world)
    async with database.sessionmaker() as db:
        row = await db.get(Proposal, body["id"])
        assert row is not None
        row.status, row.signer_name = "ACCEPTED", "Zoë Müller"
        row.accepted_at = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)
        await db.commit()
    response = await client.get(
        url(world.project, f"/{body['id']}/pdf"), headers=world.member.headers
    )
    text = text_of(response.content)
    assert "Accepted online by Zoë Müller on 22 Nov 2026." in text


async def test_signature_image_is_drawn_and_a_broken_one_is_skipped(client, world):
    body = await priced(client, world)
    read = await client.get(url(world.project, f"/{body['id']}"), headers=world.member.headers)
    accepted = read.json() | {
        "status": "ACCEPTED",
        "signerName": "Zoë Müller",
        "acceptedAt": "2026-11-22T09:30:00.000Z",
    }
    names = {"project_name": "Harbour Tower", "company_name": "Acme Builders"}
    signed = pdf.render(accepted, signature=png(240, 60), **names)
    images = [image for page in PdfReader(io.BytesIO(signed)).pages for image in page.images]
    assert len(images) == 1
    assert signed == pdf.render(accepted, signature=png(240, 60), **names)
    broken = pdf.render(accepted, signature=b"\x89PNG not really", **names)
    assert [i for p in PdfReader(io.BytesIO(broken)).pages for i in p.images] == []
    assert "Accepted online by Zoë Müller" in text_of(broken)


async def test_long_price_table_breaks_across_pages_with_its_header(client, world):
    lines = [item("1", "10", name=f"Line {n:03}") for n in range(150)]
    body = await create(client, world, items=lines)
    response = await client.get(
        url(world.project, f"/{body['id']}/pdf"), headers=world.member.headers
    )
    pages = PdfReader(io.BytesIO(response.content)).pages
    assert len(pages) >= 3
    table_pages = [
        page.extract_text() for page in pages if re.search(r"Line \d{3}", page.extract_text())
    ]
    assert len(table_pages) >= 3
    assert all("Line total" in page for page in table_pages)
    text = text_of(response.content)
    assert all(f"Line {n:03}" in text for n in range(150))
    assert "$1,500.00" in text


async def test_pdf_of_another_workspace_is_404(client, world):
    body = await priced(client, world)
    other = await make_world()
    response = await client.get(
        url(world.project, f"/{body['id']}/pdf"), headers=other.owner.headers
    )
    assert response.status_code == 404
    response = await client.get(
        url(other.project, f"/{body['id']}/pdf"), headers=other.owner.headers
    )
    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"
