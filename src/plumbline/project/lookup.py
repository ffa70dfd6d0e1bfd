"""Finding a project by what a person types in global search: words of its name or its
number, among the workspace's projects the person may open (``list_visible``'s rule)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.workspace import WorkspaceContext
from plumbline.models import Project, ProjectMember


async def find(
    db: AsyncSession, ctx: WorkspaceContext, text: str, limit: int = 5
) -> list[dict[str, Any]]:
    """``id``, ``name``, ``projectNumber``, ``stage`` of the matching projects, by name; one
    query (a workspace holds few projects: a scan of its rows)."""
    text = text.strip().lower()
    if not text:
        return []
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    like = f"%{escaped}%"
    query = select(Project.id, Project.name, Project.project_number, Project.stage).where(
        Project.workspace_id == ctx.workspace.id,
        Project.deleted_at.is_(None),
        or_(
            func.lower(Project.name).like(like, escape="\\"),
            func.lower(Project.project_number).like(like, escape="\\"),
        ),
    )
    membership = ctx.membership
    if membership.is_external or membership.restricted:
        named = select(ProjectMember.project_id).where(
            ProjectMember.user_id == membership.user_id,
            ProjectMember.workspace_id == ctx.workspace.id,
        )
        query = query.where(Project.id.in_(named))
    rows = (await db.execute(query.order_by(Project.name).limit(limit))).all()
    return [
        {"id": r.id, "name": r.name, "projectNumber": r.project_number, "stage": r.stage}
        for r in rows
    ]
