"""Drawing-AI test helpers: PDFs the tests need besides the sheets themselves (raster-only,
encrypted, damaged, a 200-page set), uploads through HTTP, and the cache rows."""

from __future__ import annotations

import io
import random
import zlib
from typing import Any

import httpx
from fpdf import FPDF
from PIL import Image
from pypdf import PdfReader, PdfWriter
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.demo.sheets import Sheet, new_pdf, render, sheet_pdf
from plumbline.models import SheetResult
from tests.file.helpers import complete, presign, sha, upload


def ai(version_id: str, route: str) -> str:
    return f"/api/v1/file-versions/{version_id}/ai/{route}"


async def upload_sheet(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    project_id: str,
    data: bytes | None = None,
    *,
    name: str = "A-101.pdf",
    content_type: str = "application/pdf",
) -> str:
    """Upload ``data`` (the metric sheet by default) as a new file; its version id. On the S3
    backend the bytes go to the object store's presigned URL, as a client sends them."""
    data = sheet_pdf() if data is None else data
    if settings.storage == "local":
        done = await upload(client, headers, project_id, name, data, content_type=content_type)
        return str(done["fileVersionId"])
    target = await presign(client, headers, project_id, name, len(data), content_type=content_type)
    assert target.status_code == 200, target.text
    async with httpx.AsyncClient() as outside:
        put = await outside.put(
            target.json()["uploadUrl"], content=data, headers=target.json()["headers"]
        )
        assert put.status_code == 200, put.text
    completed = await complete(client, headers, target.json()["uploadId"], sha(data))
    assert completed.status_code == 200, completed.text
    return str(completed.json()["fileVersionId"])


def noise_image(width: int, height: int, seed: int) -> Image.Image:
    """Pixels that do not compress: each page's image stays about width x height x 3 bytes."""
    rng = random.Random(seed)
    return Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))


def raster_only_pdf() -> bytes:
    """A scanned sheet: one page holding one image, no text and no vector line."""
    pdf = FPDF(orientation="landscape", format="A3", unit="mm")
    pdf.add_page()
    pdf.image(noise_image(60, 40, 7), x=10, y=10, w=400, h=277)
    return bytes(pdf.output())


def encrypted_pdf() -> bytes:
    """The metric sheet behind a user password."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(sheet_pdf())))
    writer.encrypt(user_password="site-secret", owner_password="owner-secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def damaged_pdf() -> bytes:
    """A PDF header and then nothing a reader can use."""
    return b"%PDF-1.7\n" + bytes(range(256)) * 64 + b"\n%%EOF\n"


def big_set(pages: int, sheet_at: int, sheet: Sheet) -> bytes:
    """``pages`` pages; page ``sheet_at`` (0-based) is ``sheet``, every other page a scan of
    about 57 kB that does not compress, so the file is far larger than any one page."""
    pdf = new_pdf()
    for index in range(pages):
        if index == sheet_at:
            render(pdf, sheet)
            continue
        pdf.add_page()
        pdf.set_font("helvetica", "", 10)
        pdf.text(20, 20, f"SCAN {index + 1}")
        pdf.image(noise_image(160, 120, index), x=20, y=30, w=380, h=250)
    return bytes(pdf.output())


async def stored_results(version_id: str) -> list[dict[str, Any]]:
    async with database.sessionmaker() as db:
        rows = await db.execute(
            select(SheetResult.kind, SheetResult.page_index, SheetResult.result).where(
                SheetResult.file_version_id == version_id
            )
        )
        return [{"kind": k, "pageIndex": p, "result": r} for k, p, r in rows]


async def count_results(version_id: str) -> int:
    async with database.sessionmaker() as db:
        return int(
            (
                await db.execute(
                    select(func.count(SheetResult.id)).where(
                        SheetResult.file_version_id == version_id
                    )
                )
            ).scalar_one()
        )


def bomb_pdf(inflated: int) -> bytes:
    """One page whose content stream is ``inflated`` bytes of blanks and then a line, deflated
    to about a thousandth of that: a decompression bomb (built a chunk at a time)."""
    deflate = zlib.compressobj(9)
    blanks = b" " * (1 << 20)
    parts = [deflate.compress(blanks) for _ in range(inflated >> 20)]
    content = b"".join(parts) + deflate.compress(b"\n0 0 m 500 500 l S\n") + deflate.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1190 842] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content)
        + content
        + b"\nendstream",
    ]
    out = io.BytesIO(b"%PDF-1.7\n")
    out.seek(0, io.SEEK_END)
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.writelines(b"%010d 00000 n \n" % offset for offset in offsets)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()
