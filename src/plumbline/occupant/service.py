"""Occupant portal rules. Managers make links (a token shown once, stored hashed); anyone
holding a link reports a problem as an OCCUPANT issue, gets a receipt with a tracking link and,
for an hour, a photo token for that one issue; the tracking page shows the title, the status
and when it changed, never staff names or comments."""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_stamp, created
from plumbline.auth.principal import Principal
from plumbline.authz import repository as authz_repo
from plumbline.authz.project import ProjectContext
from plumbline.config import settings
from plumbline.db import UnitOfWork
from plumbline.errors import Expired, InvalidField, NotFound, found
from plumbline.file.objects import discard
from plumbline.file.types import clean_name
from plumbline.issue.photos import PHOTOS
from plumbline.issue.service import issue as issue_service
from plumbline.kit import clock, crypto, ratelimit
from plumbline.kit.ids import new_id
from plumbline.kit.logging import client_ip_var
from plumbline.kit.mail import Mail
from plumbline.kit.pagination import PageParams
from plumbline.kit.storage import get_storage
from plumbline.mail.tasks import queue
from plumbline.models import OccupantLink, OccupantRequest, Project, Workspace
from plumbline.notification.service import notification
from plumbline.occupant import repository as repo
from plumbline.occupant.auth import link_token
from plumbline.occupant.labels import portal_url
from plumbline.occupant.schemas import (
    OccupantLinkCreate,
    OccupantPhotoComplete,
    OccupantPhotoPresign,
    OccupantSubmit,
)
from plumbline.om.assets import repository as assets
from plumbline.records import add_record, references
from plumbline.records.references import ASSET

SUBMITS_PER_MINUTE = 12  # per link and client IP (PRODUCT §15)
PHOTO_TOKEN_TTL = timedelta(hours=1)
PHOTOS_CLOSED = "This photo link has expired; photos can be added for an hour after a request"


_NOT_IN_NAMES = re.compile(r"[/\\\x00-\x1f\x7f-\x9f]+")


def _api(path: str) -> str:
    return f"{settings.public_url.rstrip('/')}/api/v1{path}"


def _page(path: str) -> str:
    return f"{settings.public_url.rstrip('/')}{path}"


def _tracking_page(tracking: str) -> str:
    return _page(f"/portal/requests/{tracking}")


def _tracking_token(link_id: str, key: str) -> str:
    """The tracking token of the request a page's form ``key`` makes through a link: the same
    for the same form, so a form sent twice finds the request it made (docs/decisions.md)."""
    return crypto.sign(f"{link_id}:{key}", "occupant-request")


@dataclass(frozen=True)
class Photo:
    """A photo received whole (the reporting page's form), its type read from its bytes."""

    file_name: str
    content_type: str
    data: bytes

    def presign(self, photo_token: str) -> OccupantPhotoPresign:
        name = _NOT_IN_NAMES.sub("", clean_name(self.file_name))[:255].strip()
        extension = self.content_type.rsplit("/", 1)[-1]
        return OccupantPhotoPresign(
            file_name=name or f"photo.{extension}",
            content_type=self.content_type,
            size_bytes=len(self.data),
            photo_token=photo_token,
        )


def _receipt(body: OccupantSubmit, project: Project, number: int, tracking_url: str) -> Mail:
    subject = f"We received your request: {body.title}"
    intro = (
        f"Thank you, {body.reporter_name}. Your request #{number} for {project.name} "
        "has reached the facilities team. You can follow its progress here:"
    )
    text = f"{intro}\n\n{tracking_url}\n\n{body.title}\n{body.description}\n"
    link = html.escape(tracking_url, quote=True)
    page = (
        f'<p>{html.escape(intro)}</p><p><a href="{link}">{link}</a></p>'
        f"<p><strong>{html.escape(body.title)}</strong></p>"
        f"<p>{html.escape(body.description)}</p>"
    )
    return Mail(to=[body.reporter_email], subject=subject, text=text, html=page)


class OccupantService:
    # --- links (the project's managers) ---

    async def list_links(
        self, db: AsyncSession, ctx: ProjectContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's links that were not revoked, newest first; their tokens never again."""
        rows, headers = page.finish(await repo.list_links(db, ctx.project.id, page))
        return [repo.link_read(row) for row in rows], headers

    async def create_link(
        self, db: AsyncSession, ctx: ProjectContext, body: OccupantLinkCreate
    ) -> dict[str, Any]:
        """A link (expiring in the future, if at all; on an asset of the project, if any);
        its token is answered once and stored hashed (its QR code carries it again)."""
        if body.expires_at is not None and body.expires_at <= clock.now():
            raise InvalidField("expiresAt", "must be in the future")
        await references.require(db, ctx, ASSET, "assetId", body.asset_id)
        link_id = new_id()
        token = link_token(link_id)
        link = await add_record(
            db,
            ctx,
            OccupantLink,
            id=link_id,
            label=body.label,
            asset_id=body.asset_id,
            token_hash=crypto.sha256_hex(token),
            expires_at=body.expires_at,
        )
        read = repo.link_read(link)
        await audit_change(
            db,
            ctx,
            ("occupant_link", link.id),
            "occupant_link.created",
            created({"label": link.label, "assetId": link.asset_id, "expiresAt": link.expires_at}),
        )
        return {**read, "token": token, "url": portal_url(token)}

    async def revoke_link(self, db: AsyncSession, ctx: ProjectContext, link_id: str) -> None:
        """Withdraw a live link of the project (404 otherwise): its token opens nothing now."""
        link = found(await repo.get_link(db, ctx.project.id, link_id), "Occupant link not found")
        link.revoked_at = clock.now()
        await db.flush()
        await audit_stamp(
            db,
            ctx,
            ("occupant_link", link.id),
            "occupant_link.revoked",
            "revokedAt",
            link.revoked_at,
        )

    # --- the portal (the link's token) ---

    async def meta(self, db: AsyncSession, principal: Principal) -> dict[str, Any]:
        """The building (project), its organisation and, for an asset's own link, the asset."""
        link, project, workspace = principal.require_token().rows
        asset = await assets.get(db, project.id, link.asset_id) if link.asset_id else None
        brief = None
        headline = f"Report a problem at {project.name}"
        if asset is not None:
            brief = {name: getattr(asset, name) for name in ("id", "tag", "name", "location")}
            headline = f"Report a problem with {asset.name} at {project.name}"
        return {
            "projectId": project.id,
            "projectName": project.name,
            "workspaceName": workspace.name,
            "headline": headline,
            "asset": brief,
        }

    async def submit(
        self,
        uow: UnitOfWork,
        principal: Principal,
        body: OccupantSubmit,
        *,
        key: str | None = None,
    ) -> dict[str, Any]:
        """An OCCUPANT issue, the reporter's receipt, the managers' notification; 429 past
        12 submissions a minute from one address through one link. ``key``: the reporting
        page's form, whose tracking token it derives (``submitted_with`` finds it again)."""
        db = uow.session
        link: OccupantLink
        project: Project
        workspace: Workspace
        link, project, workspace = principal.require_token().rows
        client_ip = client_ip_var.get() or "unknown"
        await ratelimit.hit(f"occupant:{link.id}:{client_ip}", SUBMITS_PER_MINUTE, 60)
        issue = await issue_service.open_occupant_request(
            db,
            principal,
            project_id=project.id,
            workspace_id=workspace.id,
            title=body.title,
            description=body.description,
            location=body.location,
            asset_id=link.asset_id,
        )
        tracking = _tracking_token(link.id, key) if key else crypto.random_token()
        photo = crypto.random_token()
        expires = clock.now() + PHOTO_TOKEN_TTL
        await repo.add_request(
            db,
            issue_id=issue["id"],
            link_id=link.id,
            project_id=project.id,
            workspace_id=workspace.id,
            reporter_name=body.reporter_name,
            reporter_email=body.reporter_email,
            tracking_token_hash=crypto.sha256_hex(tracking),
            photo_token_hash=crypto.sha256_hex(photo),
            photo_token_expires_at=expires,
        )
        managers = await authz_repo.project_managers(db, workspace.id, project.id)
        await notification.notify(
            db,
            managers,
            kind="OCCUPANT_REQUEST",
            title=f"Occupant request #{issue['number']}: {body.title}",
            body=f'Reported by {body.reporter_name} through "{link.label}"',
            href=f"/projects/{project.id}/issues/{issue['id']}",
            workspace_id=workspace.id,
            project_id=project.id,
        )
        queue(uow, _receipt(body, project, issue["number"], _tracking_page(tracking)))
        return {
            "ok": True,
            "issueId": issue["id"],
            "trackingUrl": _api(f"/occupant/requests/{tracking}"),
            "photoToken": photo,
            "photoTokenExpiresAt": expires,
        }

    def tracking_page(self, principal: Principal, key: str) -> str:
        """The tracking page of the request the page's form ``key`` made through the link."""
        return _tracking_page(_tracking_token(principal.require_token().subject_id, key))

    async def submitted_with(
        self, db: AsyncSession, principal: Principal, key: str
    ) -> dict[str, Any] | None:
        """The request the page's form ``key`` already made through the link (a form sent
        twice), as its receipt shows it; None when it made none."""
        tracking = _tracking_token(principal.require_token().subject_id, key)
        found = await repo.tracked(db, crypto.sha256_hex(tracking))
        if found is None:
            return None
        issue_id, _, title, *_ = found
        return {"issueId": issue_id, "title": title, "trackingPage": _tracking_page(tracking)}

    async def _photo_request(
        self, db: AsyncSession, principal: Principal, issue_id: str, photo_token: str
    ) -> OccupantRequest:
        """The request the photo token opens: 404 unless it is this issue's and came through
        this link, 410 after its hour."""
        token_hash = crypto.sha256_hex(photo_token)
        request = await repo.request_by_photo_token(db, token_hash)
        link_id = principal.require_token().subject_id
        if (
            request is None
            or not crypto.constant_time_equals(request.photo_token_hash, token_hash)
            or request.issue_id != issue_id
            or request.link_id != link_id
        ):
            raise NotFound("No such request for this photo token")
        if request.photo_token_expires_at <= clock.now():
            raise Expired(PHOTOS_CLOSED)
        return request

    async def presign_photo(
        self, db: AsyncSession, principal: Principal, issue_id: str, body: OccupantPhotoPresign
    ) -> dict[str, Any]:
        """An upload target for a photo of the reporter's own request, as for issue photos."""
        request = await self._photo_request(db, principal, issue_id, body.photo_token)
        scope = (request.workspace_id, request.project_id)
        return await PHOTOS.presign_public(db, scope, issue_id, body)

    async def complete_photo(
        self, db: AsyncSession, principal: Principal, issue_id: str, body: OccupantPhotoComplete
    ) -> dict[str, Any]:
        """Record an uploaded photo of the reporter's own request (idempotent)."""
        request = await self._photo_request(db, principal, issue_id, body.photo_token)
        scope = (request.workspace_id, request.project_id)
        return await PHOTOS.complete_public(db, scope, issue_id, body)

    async def add_photos(
        self,
        db: AsyncSession,
        principal: Principal,
        issue_id: str,
        photo_token: str,
        photos: Sequence[Photo],
    ) -> list[dict[str, Any]]:
        """Photos received whole (the reporting page): each presigned, stored and completed as
        the JSON route's photos are (type, size, count, quota); on a refusal the ones already
        stored are removed, and the request's rollback takes the rest."""
        stored: list[str] = []
        added = []
        try:
            for photo in photos:
                target = await self.presign_photo(
                    db, principal, issue_id, photo.presign(photo_token)
                )
                stored.append(target["s3Key"])
                await get_storage().put_bytes(target["s3Key"], photo.data, photo.content_type)
                done = OccupantPhotoComplete(
                    upload_id=target["uploadId"],
                    sha256=hashlib.sha256(photo.data).hexdigest(),
                    photo_token=photo_token,
                )
                added.append(await self.complete_photo(db, principal, issue_id, done))
        except Exception:
            for key in stored:
                await discard(key)
            raise
        return added

    # --- the tracking page (the request's own token) ---

    async def track(self, db: AsyncSession, principal: Principal) -> dict[str, Any]:
        """Title, status, when it was reported and each status change since (no names)."""
        issue_id, project_id, title, status, created_at, _ = principal.require_token().rows
        updates = [
            {"at": at, "status": changes["status"][1]}
            for at, changes in await repo.status_changes(db, project_id, issue_id)
            if isinstance(changes.get("status"), list)
        ]
        return {"title": title, "status": status, "submittedAt": created_at, "updates": updates}


occupants = OccupantService()
