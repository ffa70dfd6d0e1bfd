"""Every occupant-portal query: links by project or token hash, requests by their tokens, and
the status history a tracking page shows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import AuditLog, Issue, OccupantLink, OccupantRequest, Project, Workspace

LINK_COLUMNS: tuple[Any, ...] = (
    OccupantLink.id,
    OccupantLink.project_id,
    OccupantLink.label,
    OccupantLink.asset_id,
    OccupantLink.expires_at,
    OccupantLink.created_by,
    OccupantLink.created_at,
)
LINK_KEYS = ("id", "projectId", "label", "assetId", "expiresAt", "createdBy", "createdAt")


async def list_links(db: AsyncSession, project_id: str) -> Sequence[Row[Any]]:
    """The project's links that were not revoked, newest first (expired ones included: a
    manager sees that a printed QR code stopped working)."""
    query = (
        select(*LINK_COLUMNS)
        .where(OccupantLink.project_id == project_id, OccupantLink.revoked_at.is_(None))
        .order_by(OccupantLink.id.desc())
    )
    return (await db.execute(query)).all()


async def get_link(db: AsyncSession, project_id: str, link_id: str) -> OccupantLink | None:
    query = select(OccupantLink).where(
        OccupantLink.id == link_id,
        OccupantLink.project_id == project_id,
        OccupantLink.revoked_at.is_(None),
    )
    return (await db.execute(query)).scalar_one_or_none()


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
