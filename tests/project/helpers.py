"""Test helpers for the project domain: direct reads of what the routes wrote."""

from __future__ import annotations

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import AuditLog, ProjectMember


async def audit_entries(project_id: str, action: str | None = None) -> list[AuditLog]:
    async with database.sessionmaker() as db:
        query = select(AuditLog).where(AuditLog.project_id == project_id)
        if action is not None:
            query = query.where(AuditLog.action == action)
        return list((await db.execute(query.order_by(AuditLog.id))).scalars())


async def name_on_projects(
    user_id: str, workspace_id: str, project_ids: list[str], project_role: str | None = None
) -> None:
    """Give a user named access (ProjectMember rows) to projects."""
    async with database.sessionmaker() as db:
        now = clock.now()
        db.add_all(
            ProjectMember(
                project_id=project_id,
                user_id=user_id,
                workspace_id=workspace_id,
                project_role=project_role,
                created_at=now,
            )
            for project_id in project_ids
        )
        await db.commit()
