"""What a manager prints for the occupant portal: a link's QR code (PNG or SVG), encoding the
occupant page's address, and the label sheet of the project's links. Readable by whoever may
read the links; a revoked link answers 404, an expired one 410 (its code would open nothing),
and one made before links had printable codes 409."""

from __future__ import annotations

import hashlib
from io import BytesIO
from typing import Any, Literal

from fastapi import Request, Response
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.config import settings
from plumbline.errors import found
from plumbline.kit import clock, crypto
from plumbline.occupant import repository as repo
from plumbline.occupant.auth import link_token
from plumbline.occupant.errors import LinkExpired, LinkNotFound, LinkNotPrintable

Paper = Literal["A4", "Letter"]
ImageKind = Literal["png", "svg"]
MEDIA_TYPES: dict[ImageKind, str] = {"png": "image/png", "svg": "image/svg+xml"}
PNG_SCALE = 10  # pixels a module: a code of a 43-character token is 450 px square
SVG_SCALE = 8
QUIET_ZONE = 4
# The same link gives the same image; a browser keeps it a day and revalidates with the ETag.
IMAGE_CACHE = "private, max-age=86400"


def portal_url(token: str) -> str:
    """The occupant page a link's token opens (on the public URL, as e-mailed links are)."""
    return f"{settings.public_url.rstrip('/')}/portal/occupant/{token}"


def printable_token(link_id: str, token_hash: str) -> str | None:
    """The link's token, when it is the one derived from its id (links made before that have
    only their hash stored: nothing can print them)."""
    token = link_token(link_id)
    return token if crypto.constant_time_equals(crypto.sha256_hex(token), token_hash) else None


def image_response(request: Request, content: bytes, media_type: str, filename: str) -> Response:
    """``content`` inline with its ETag, or 304 when the caller holds it already."""
    etag = '"' + hashlib.sha256(content).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": IMAGE_CACHE}
    sent = {tag.strip() for tag in request.headers.get("if-none-match", "").split(",")}
    if etag in sent or "*" in sent:
        return Response(status_code=304, headers=headers)
    headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return Response(content, media_type=media_type, headers=headers)


class LabelService:
    async def qr(
        self, db: AsyncSession, ctx: ProjectContext, link_id: str, kind: ImageKind
    ) -> tuple[bytes, str]:
        """The QR code of a live link of the project, and its file name."""
        link = found(await repo.get_link(db, ctx.project.id, link_id), LinkNotFound())
        if link.expires_at is not None and link.expires_at <= clock.now():
            raise LinkExpired()
        token = printable_token(link.id, link.token_hash)
        if token is None:
            raise LinkNotPrintable()
        from plumbline.occupant.label_sheet import qr_code  # segno: when a code is drawn

        code = qr_code(portal_url(token))
        buffer = BytesIO()
        options: dict[str, Any] = {"scale": PNG_SCALE, "border": QUIET_ZONE}
        if kind == "svg":
            title = f"Report a problem: {link.label}"
            options = {"scale": SVG_SCALE, "border": QUIET_ZONE, "light": "#fff"}
            options |= {"title": title, "xmldecl": False, "svgclass": None, "lineclass": None}
        code.save(buffer, kind=kind, **options)
        return buffer.getvalue(), f"occupant-link-{link.id}.{kind}"

    async def sheet(self, db: AsyncSession, ctx: ProjectContext, paper: Paper) -> bytes:
        """The label sheet of the project's links that still open the portal."""
        from plumbline.occupant.label_sheet import Label, Sheet, render  # fpdf: when one is made

        rows = await repo.sheet_links(db, ctx.project.id, clock.now())
        printable: list[Label] = []
        for link_id, label, token_hash, _, name, tag, location in rows:
            token = printable_token(link_id, token_hash)
            if token is None:
                continue
            if name is None:
                printable.append(Label(portal_url(token), label, ctx.project.name))
            else:
                details = f"Tag {tag}" + (f" \u00b7 {location}" if location else "")
                printable.append(Label(portal_url(token), name, details))
        dated = max((row[3] for row in rows), default=ctx.project.created_at)
        return render(
            Sheet(
                workspace_name=ctx.workspace.name,
                primary_color=ctx.workspace.primary_color,
                project_name=ctx.project.name,
                paper=paper,
                labels=printable,
                unprintable=len(rows) - len(printable),
                dated=dated,
            )
        )


labels = LabelService()
