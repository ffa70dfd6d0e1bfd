"""Workspace rules: unique slugs, the creator as SUPER_ADMIN, soft delete with a restore window."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, time, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, audit_stamp, audit_update, created
from plumbline.auth.principal import Principal
from plumbline.authz.permissions import Role
from plumbline.authz.plans import TRIAL_DAYS, seat_limit, storage_quota
from plumbline.authz.workspace import WorkspaceContext
from plumbline.dashboard.service import (
    ISSUE_OPEN,
    ISSUE_STATUSES,
    PUNCH_OPEN,
    RFI_OPEN,
)
from plumbline.errors import Forbidden, InvalidField
from plumbline.file.branding import logo_url
from plumbline.kit import clock
from plumbline.kit.pagination import PageParams
from plumbline.models import Issue, Membership, PunchItem, Rfi, Workspace
from plumbline.project.service import project as project_service
from plumbline.snapshots import tracked
from plumbline.workspace import repository
from plumbline.workspace.errors import SlugTaken
from plumbline.workspace.schemas import WorkspaceCreate, WorkspaceUpdate

RESTORE_WINDOW = timedelta(days=30)
ACTIVITY_DAYS = 14
SLUG_BASE_LENGTH = 60
# Stages of a project no longer worked on: the workspace home lists them apart.
INACTIVE_STAGES = ("Completed", "On Hold")
OPEN_RECORDS = ((Issue, ISSUE_OPEN), (Rfi, RFI_OPEN), (PunchItem, PUNCH_OPEN))

PurgeHook = Callable[[AsyncSession, list[str]], Awaitable[None]]


def slugify(name: str) -> str:
    """The name as ASCII lower-case words joined by hyphens ("workspace" when nothing is left)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug[:SLUG_BASE_LENGTH].strip("-") or "workspace"


def workspace_dict(workspace: Workspace, seats_used: int) -> dict[str, Any]:
    """The workspace; ``seats_used`` counts its internal members (externals use no seat)."""
    return {
        "id": workspace.id,
        "name": workspace.name,
        "slug": workspace.slug,
        "logo": logo_url(workspace.id) if workspace.logo_key else None,
        "primaryColor": workspace.primary_color,
        "plan": workspace.plan,
        "subscriptionStatus": workspace.subscription_status,
        "trialEndsAt": clock.iso(workspace.trial_ends_at),
        "storageUsedBytes": workspace.storage_used_bytes,
        "storageQuotaBytes": storage_quota(workspace),
        "seatsUsed": seats_used,
        "seatLimit": seat_limit(workspace),
        "createdAt": clock.iso(workspace.created_at),
    }


async def _seats_used(db: AsyncSession, workspace_id: str) -> int:
    total, external = await repository.member_counts(db, workspace_id)
    return total - external


def _audited(workspace: Workspace) -> dict[str, Any]:
    return {
        "name": workspace.name,
        "slug": workspace.slug,
        "primaryColor": workspace.primary_color,
    }


class WorkspaceService:
    async def create(
        self, db: AsyncSession, principal: Principal, data: WorkspaceCreate
    ) -> dict[str, Any]:
        """The caller becomes the workspace's SUPER_ADMIN; the plan starts as a 14-day trial."""
        user = principal.require_user()
        if data.slug is not None:
            if await repository.slug_taken(db, data.slug):
                raise SlugTaken()
            slug = data.slug
        else:
            slug = await self._free_slug(db, slugify(data.name))
        now = clock.now()
        workspace = Workspace(
            name=data.name,
            slug=slug,
            plan="trial",
            subscription_status="trialing",
            trial_ends_at=now + timedelta(days=TRIAL_DAYS),
            storage_used_bytes=0,
            created_by=user.id,
            created_at=now,
            updated_at=now,
        )
        db.add(workspace)
        await db.flush()
        db.add(
            Membership(
                workspace_id=workspace.id,
                user_id=user.id,
                role=Role.SUPER_ADMIN.value,
                is_external=False,
                restricted=False,
                joined_at=now,
            )
        )
        await audit_as(
            db,
            principal,
            ("workspace", workspace.id),
            "workspace.created",
            created(_audited(workspace)),
            workspace_id=workspace.id,
        )
        await db.flush()
        return workspace_dict(workspace, seats_used=1)

    async def _free_slug(self, db: AsyncSession, base: str) -> str:
        taken = await repository.slugs_like(db, base)
        if base not in taken:
            return base
        n = 2
        while f"{base}-{n}" in taken:
            n += 1
        return f"{base}-{n}"

    async def read(self, db: AsyncSession, ctx: WorkspaceContext) -> dict[str, Any]:
        """The workspace with its seats used."""
        return workspace_dict(ctx.workspace, await _seats_used(db, ctx.workspace.id))

    async def update(
        self, db: AsyncSession, ctx: WorkspaceContext, data: WorkspaceUpdate
    ) -> dict[str, Any]:
        """Rename, re-slug (unique) or recolour the workspace; name and slug are never null."""
        workspace = await tracked(db, ctx.workspace)
        given = data.model_fields_set
        for field in ("name", "slug"):
            if field in given and getattr(data, field) is None:
                raise InvalidField(field, "may not be null")
        before = _audited(workspace)
        if data.slug is not None and data.slug != workspace.slug:
            if await repository.slug_taken(db, data.slug, exclude_id=workspace.id):
                raise SlugTaken()
            workspace.slug = data.slug
        if data.name is not None:
            workspace.name = data.name
        if "primary_color" in given:
            workspace.primary_color = data.primary_color.upper() if data.primary_color else None
        entity = ("workspace", workspace)
        await audit_update(db, ctx, entity, "workspace.updated", before, _audited(workspace))
        return workspace_dict(workspace, await _seats_used(db, workspace.id))

    async def delete(self, db: AsyncSession, ctx: WorkspaceContext) -> None:
        """Soft delete: the workspace vanishes for everyone; rows are purged after 30 days."""
        workspace = await tracked(db, ctx.workspace)
        workspace.deleted_at = clock.now()
        await audit_stamp(
            db,
            ctx,
            ("workspace", workspace.id),
            "workspace.deleted",
            "deletedAt",
            workspace.deleted_at,
        )
        await db.flush()

    async def dashboard(self, db: AsyncSession, ctx: WorkspaceContext) -> dict[str, Any]:
        """Projects by stage, members, storage, issues by status and 14 UTC days of activity.

        Internal members only (externals get 403). Issues are the live issues of every kind
        (construction issues, work orders, occupant requests) in the live projects, whatever
        the projects' module switches. Five queries after the access check."""
        if ctx.membership.is_external:
            raise Forbidden()
        workspace = ctx.workspace
        by_stage = await repository.projects_by_stage(db, workspace.id)
        total, external = await repository.member_counts(db, workspace.id)
        issues = await repository.issues_by_status(db, workspace.id)
        today = clock.today()
        days = [today - timedelta(days=ACTIVITY_DAYS - 1 - i) for i in range(ACTIVITY_DAYS)]
        starts = [datetime.combine(day, time(0), tzinfo=UTC) for day in days]
        end = starts[-1] + timedelta(days=1)
        counts = await repository.activity_by_bucket(db, workspace.id, starts, end)
        return {
            "projects": {"total": sum(by_stage.values()), "byStage": by_stage},
            "members": {"total": total, "internal": total - external, "external": external},
            "storage": {
                "usedBytes": workspace.storage_used_bytes,
                "quotaBytes": storage_quota(workspace),
            },
            "issues": {"byStatus": {s: issues.get(s, 0) for s in ISSUE_STATUSES}},
            "activity": [
                {"day": day.isoformat(), "count": counts.get(i, 0)} for i, day in enumerate(days)
            ],
        }

    async def home(
        self, db: AsyncSession, ctx: WorkspaceContext, page: PageParams
    ) -> dict[str, Any]:
        """The workspace home: the projects the caller sees (active ones, then the completed
        and on-hold ones apart), each with its open and overdue records (issues, RFIs and punch
        items; not for externals, whose counts would name records they are not shown), and the
        dashboard for internal members. A fixed number of statements whatever the projects."""
        projects, headers = await project_service.list_visible(db, ctx, page)
        external = ctx.membership.is_external
        if not external:
            ids = [p["id"] for p in projects]
            counts = await repository.open_items_by_project(
                db, ctx.workspace.id, ids, clock.today(), OPEN_RECORDS
            )
            for p in projects:
                p["openItems"], p["overdueItems"] = counts.get(p["id"], (0, 0))
        active = [p for p in projects if p["stage"] not in INACTIVE_STAGES]
        return {
            "active": active,
            "inactive": [p for p in projects if p["stage"] in INACTIVE_STAGES],
            "openItems": sum(p.get("openItems", 0) for p in active),
            "overdueItems": sum(p.get("overdueItems", 0) for p in active),
            "next": _next_url(headers),
            "dashboard": None if external else await self.dashboard(db, ctx),
        }


def _next_url(headers: dict[str, str]) -> str | None:
    """The next page's URL (this page's, with the cursor) from a list's ``Link`` header."""
    link = headers.get("Link")
    return link[1 : link.index(">")] if link else None


workspace = WorkspaceService()


async def purge_deleted_workspaces(
    db: AsyncSession,
    older_than: timedelta = RESTORE_WINDOW,
    *,
    before_purge: PurgeHook | None = None,
) -> list[str]:
    """Hard-delete the rows of workspaces soft-deleted more than ``older_than`` ago.

    Stored objects (file versions, attachments, logos) are not removed here: the files module
    passes ``before_purge``, which gets the workspace ids while their rows still exist.
    Returns the purged workspace ids. Flushes only; the caller commits."""
    ids = await repository.deleted_before(db, clock.now() - older_than)
    if not ids:
        return []
    if before_purge is not None:
        await before_purge(db, ids)
    await repository.delete_workspace_rows(db, ids)
    await db.flush()
    return ids
