"""Workspace queries."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import case, delete, func, literal, or_, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Base
from plumbline.models import AuditLog, Issue, Membership, Project, Workspace


async def slugs_like(db: AsyncSession, base: str) -> set[str]:
    """Slugs equal to ``base`` or ``base-<anything>``, deleted workspaces included."""
    rows = await db.execute(
        select(Workspace.slug).where(or_(Workspace.slug == base, Workspace.slug.like(f"{base}-%")))
    )
    return set(rows.scalars())


async def slug_taken(db: AsyncSession, slug: str, *, exclude_id: str | None = None) -> bool:
    query = select(Workspace.id).where(Workspace.slug == slug)
    if exclude_id is not None:
        query = query.where(Workspace.id != exclude_id)
    return (await db.execute(query.limit(1))).first() is not None


async def projects_by_stage(db: AsyncSession, workspace_id: str) -> dict[str, int]:
    rows = await db.execute(
        select(Project.stage, func.count())
        .where(Project.workspace_id == workspace_id, Project.deleted_at.is_(None))
        .group_by(Project.stage)
    )
    return {str(stage): int(count) for stage, count in rows.tuples()}


async def issues_by_status(db: AsyncSession, workspace_id: str) -> dict[str, int]:
    """Live issues (every kind) of the workspace's live projects, per status."""
    rows = await db.execute(
        select(Issue.status, func.count())
        .join(Project, Project.id == Issue.project_id)
        .where(
            Issue.workspace_id == workspace_id,
            Issue.deleted_at.is_(None),
            Project.workspace_id == workspace_id,
            Project.deleted_at.is_(None),
        )
        .group_by(Issue.status)
    )
    return {str(status): int(count) for status, count in rows.tuples()}


OpenStatuses = tuple[tuple[Any, tuple[str, ...]], ...]  # (record model, its open statuses)


async def open_items_by_project(
    db: AsyncSession, workspace_id: str, project_ids: list[str], today: date, open_: OpenStatuses
) -> dict[str, tuple[int, int]]:
    """Per project: (open, overdue) records of the tables in ``open_`` (issues, RFIs, punch
    items), live ones only: one grouped statement whatever the number of projects."""
    if not project_ids:
        return {}
    parts = [
        select(
            model.project_id.label("project_id"),
            literal(1).label("open"),
            case((model.due_date < today, 1), else_=0).label("overdue"),
        ).where(
            model.workspace_id == workspace_id,
            model.project_id.in_(project_ids),
            model.deleted_at.is_(None),
            model.status.in_(statuses),
        )
        for model, statuses in open_
    ]
    records = union_all(*parts).subquery()
    rows = await db.execute(
        select(
            records.c.project_id, func.sum(records.c.open), func.sum(records.c.overdue)
        ).group_by(records.c.project_id)
    )
    return {str(pid): (int(n), int(late or 0)) for pid, n, late in rows.tuples()}


async def member_counts(db: AsyncSession, workspace_id: str) -> tuple[int, int]:
    """(total, external) memberships of the workspace."""
    row = (
        await db.execute(
            select(
                func.count(),
                func.coalesce(func.sum(case((Membership.is_external, 1), else_=0)), 0),
            ).where(Membership.workspace_id == workspace_id)
        )
    ).one()
    return int(row[0]), int(row[1])


async def activity_by_bucket(
    db: AsyncSession, workspace_id: str, starts: list[datetime], end: datetime
) -> dict[int, int]:
    """Audit entries of the workspace per bucket ``i`` = ``[starts[i], starts[i+1] or end)``."""
    bucket = case(
        *[(AuditLog.created_at >= start, i) for i, start in reversed(list(enumerate(starts)))],
        else_=-1,
    )
    inner = (
        select(bucket.label("bucket"))
        .where(
            AuditLog.workspace_id == workspace_id,
            AuditLog.created_at >= starts[0],
            AuditLog.created_at < end,
        )
        .subquery()
    )
    rows = await db.execute(select(inner.c.bucket, func.count()).group_by(inner.c.bucket))
    return {int(b): int(n) for b, n in rows.tuples()}


async def deleted_before(db: AsyncSession, cutoff: datetime) -> list[str]:
    rows = await db.execute(
        select(Workspace.id).where(Workspace.deleted_at.is_not(None), Workspace.deleted_at < cutoff)
    )
    return list(rows.scalars())


async def delete_workspace_rows(db: AsyncSession, workspace_ids: list[str]) -> None:
    """Every row that names these workspaces, dependants first, then the workspaces themselves.

    Tables with a ``workspace_id`` column are cleared explicitly (some have no foreign key);
    rows that reach a workspace only through a foreign key go by its ON DELETE CASCADE."""
    for table in reversed(Base.metadata.sorted_tables):
        if "workspace_id" in table.c and table.name != Workspace.__tablename__:
            await db.execute(delete(table).where(table.c.workspace_id.in_(workspace_ids)))
    await db.execute(delete(Workspace).where(Workspace.id.in_(workspace_ids)))
