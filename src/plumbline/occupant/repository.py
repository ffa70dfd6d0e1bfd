"""Every occupant-portal query: links by project or token hash, requests by their tokens, and
the status history a tracking page shows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import (
    Asset,
    AuditLog,
    Issue,
    OccupantLink,
    OccupantRequest,
    Project,
    Workspace,
)

# A link as the API answers it (its instants as they are: orjson writes them).
LINK_FIELDS = {
    "id": "id",
    "projectId": "project_id",
    "label": "label",
    "assetId": "asset_id",
    "expiresAt": "expires_at",
    "createdBy": "created_by",
    "createdAt": "created_at",
}
LINK_COLUMNS = tuple(getattr(OccupantLink, column) for column in LINK_FIELDS.values())


def link_read(link: Any) -> dict[str, Any]:
    """The answer for a link, from the entity or a row of ``LINK_COLUMNS``."""
    return {name: getattr(link, column) for name, column in LINK_FIELDS.items()}


async def list_links(db: AsyncSession, project_id: str, page: PageParams) -> Sequence[Row[Any]]:
    """The project's links that were not revoked (expired ones included: a manager sees that a
    printed QR code stopped working)."""
    query = select(*LINK_COLUMNS).where(
        OccupantLink.project_id == project_id, OccupantLink.revoked_at.is_(None)
    )
    return (await db.execute(page.apply(query, OccupantLink.id))).all()


async def get_link(db: AsyncSession, project_id: str, link_id: str) -> OccupantLink | None:
    query = select(OccupantLink).where(
        OccupantLink.id == link_id,
        OccupantLink.project_id == project_id,
        OccupantLink.revoked_at.is_(None),
    )
    return (await db.execute(query)).scalar_one_or_none()


async def sheet_links(
    db: AsyncSession, project_id: str, now: datetime
) -> Sequence[Row[str, str, str, datetime, str | None, str | None, str | None]]:
    """The project's links that still open the portal (not revoked, not expired): id, label,
    token hash, created, and their live asset's name, tag and location (None without one);
    the assets' links first by tag, then the others by label."""
    asset = and_(
        Asset.id == OccupantLink.asset_id,
        Asset.project_id == OccupantLink.project_id,
        Asset.deleted_at.is_(None),
    )
    query = (
        select(
            OccupantLink.id,
            OccupantLink.label,
            OccupantLink.token_hash,
            OccupantLink.created_at,
            Asset.name,
            Asset.tag,
            Asset.location,
        )
        .outerjoin(Asset, asset)
        .where(
            OccupantLink.project_id == project_id,
            OccupantLink.revoked_at.is_(None),
            or_(OccupantLink.expires_at.is_(None), OccupantLink.expires_at > now),
        )
        .order_by(Asset.tag.is_(None), Asset.tag, OccupantLink.label, OccupantLink.id)
    )
    return (await db.execute(query)).all()


async def link_by_token_hash(
    db: AsyncSession, token_hash: str
) -> Row[OccupantLink, Project, Workspace] | None:
    """The link with its live project and workspace."""
    query = (
        select(OccupantLink, Project, Workspace)
        .join(Project, Project.id == OccupantLink.project_id)
        .join(Workspace, Workspace.id == Project.workspace_id)
        .where(
            OccupantLink.token_hash == token_hash,
            Project.deleted_at.is_(None),
            Workspace.deleted_at.is_(None),
        )
    )
    return (await db.execute(query)).first()


async def add_request(db: AsyncSession, **values: Any) -> None:
    """Who reported an occupant issue and the hashes of the two tokens they were given."""
    await db.execute(insert(OccupantRequest).values(id=new_id(), created_at=clock.now(), **values))


async def request_by_photo_token(db: AsyncSession, token_hash: str) -> OccupantRequest | None:
    query = select(OccupantRequest).where(OccupantRequest.photo_token_hash == token_hash)
    return (await db.execute(query)).scalar_one_or_none()


async def tracked(
    db: AsyncSession, token_hash: str
) -> Row[str, str, str, str, datetime, str] | None:
    """The live issue a tracking token follows: id, project, title, status, created, workspace."""
    query = (
        select(
            Issue.id,
            Issue.project_id,
            Issue.title,
            Issue.status,
            Issue.created_at,
            Issue.workspace_id,
        )
        .join(OccupantRequest, OccupantRequest.issue_id == Issue.id)
        .where(OccupantRequest.tracking_token_hash == token_hash, Issue.deleted_at.is_(None))
    )
    return (await db.execute(query)).first()


async def status_changes(
    db: AsyncSession, project_id: str, issue_id: str
) -> Sequence[Row[datetime, dict[str, Any]]]:
    """The issue's audited updates, oldest first (the service keeps the status changes)."""
    query = (
        select(AuditLog.created_at, AuditLog.changes)
        .where(
            AuditLog.project_id == project_id,
            AuditLog.entity_type == "issue",
            AuditLog.entity_id == issue_id,
            AuditLog.action == "issue.updated",
        )
        .order_by(AuditLog.created_at, AuditLog.id)
    )
    return (await db.execute(query)).all()
