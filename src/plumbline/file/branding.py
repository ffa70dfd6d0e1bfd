"""Workspace branding: the logo, served publicly for e-mails and portals, and the e-mail icon.

The logo (PNG, JPEG or WebP, at most 2 MB, checked by its magic bytes) is stored through the
storage backend; the e-mail icon ships with the package.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from typing import Any

from fastapi import Request, Response
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import ClientDisconnect

from plumbline.audit.service import audit_change
from plumbline.authz.workspace import WorkspaceContext
from plumbline.db import UnitOfWork
from plumbline.errors import BadRequest, NotFound, PayloadTooLarge, UnsupportedMediaType, found
from plumbline.file import upload_repository
from plumbline.file.objects import discard_after_commit
from plumbline.file.types import image_type, media_type
from plumbline.kit.ids import new_id
from plumbline.kit.storage import get_storage
from plumbline.kit.storage.http import object_response
from plumbline.snapshots import tracked

MAX_LOGO_BYTES = 2_000_000
LOGO_TYPES = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}


def logo_url(workspace_id: str) -> str:
    """The public URL of a workspace's logo (e-mails and portals link to it)."""
    return f"/api/v1/public/workspaces/{workspace_id}/logo"


async def _read_body(request: Request) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdecimal() and int(declared) > MAX_LOGO_BYTES:
        raise PayloadTooLarge(f"Logos are limited to {MAX_LOGO_BYTES} bytes")
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_LOGO_BYTES:
                raise PayloadTooLarge(f"Logos are limited to {MAX_LOGO_BYTES} bytes")
            chunks.append(chunk)
    except ClientDisconnect:
        raise BadRequest("The upload was interrupted") from None
    return b"".join(chunks)


@cache
def _email_icon() -> bytes:
    return (resources.files("plumbline.file") / "assets" / "email-icon.png").read_bytes()


class BrandingService:
    async def set_logo(
        self, uow: UnitOfWork, ctx: WorkspaceContext, request: Request
    ) -> dict[str, Any]:
        """Replace the logo with a PNG, JPEG or WebP body, its type read from its magic bytes (a
        declared image type must match them); the old one is removed after the commit."""
        declared = media_type(request.headers.get("content-type", ""))
        if declared != "application/octet-stream" and declared not in LOGO_TYPES:
            raise UnsupportedMediaType("The logo must be a PNG, JPEG or WebP image")
        data = await _read_body(request)
        if not data:
            raise BadRequest("The request body is empty")
        content_type = image_type(data) or ""
        extension = LOGO_TYPES.get(content_type)
        if extension is None:
            raise UnsupportedMediaType("The logo must be a PNG, JPEG or WebP image")
        if declared not in ("application/octet-stream", content_type):
            raise UnsupportedMediaType(f"The body is not a {LOGO_TYPES[declared].upper()} image")
        workspace = await tracked(uow.session, ctx.workspace)
        key = f"ws/{workspace.id}/branding/logo-{new_id()}.{extension}"
        await get_storage().put_bytes(key, data, content_type)
        old = workspace.logo_key
        workspace.logo_key, workspace.logo_content_type = key, content_type
        await uow.session.flush()
        await audit_change(
            uow.session,
            ctx,
            ("workspace", workspace.id),
            "workspace.logo_updated",
            {"logo": [old is not None, True], "logoContentType": [None, content_type]},
        )
        if old:
            discard_after_commit(uow, [old])
        return {
            "workspaceId": workspace.id,
            "logo": logo_url(workspace.id),
            "logoContentType": content_type,
        }

    async def remove_logo(self, uow: UnitOfWork, ctx: WorkspaceContext) -> None:
        """Remove the logo (404 when there is none); its object goes after the commit."""
        workspace = await tracked(uow.session, ctx.workspace)
        if workspace.logo_key is None:
            raise NotFound("The workspace has no logo")
        old = workspace.logo_key
        workspace.logo_key, workspace.logo_content_type = None, None
        await uow.session.flush()
        await audit_change(
            uow.session,
            ctx,
            ("workspace", workspace.id),
            "workspace.logo_removed",
            {"logo": [True, False]},
        )
        discard_after_commit(uow, [old])

    async def public_logo(self, request: Request, db: AsyncSession, workspace_id: str) -> Response:
        """The logo for anyone holding the workspace id (e-mails, portals), cached five minutes."""
        row = await upload_repository.workspace_logo(db, workspace_id)
        if row is None or row.logo_key is None:
            raise NotFound("No logo")
        storage = get_storage()
        size = found(await storage.head(row.logo_key), "No logo")
        return object_response(
            request,
            storage,
            row.logo_key,
            size=size,
            content_type=row.logo_content_type or "application/octet-stream",
            etag='"' + hashlib.sha256(row.logo_key.encode()).hexdigest()[:32] + '"',
            cache_control="public, max-age=300",
        )

    def email_icon(self, request: Request) -> Response:
        """The e-mail icon shipped with the package, with its ETag (304 when unchanged)."""
        data = _email_icon()
        etag = '"' + hashlib.sha256(data).hexdigest()[:32] + '"'
        headers = {"ETag": etag, "Cache-Control": "public, max-age=86400"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(data, media_type="image/png", headers=headers)


branding = BrandingService()
