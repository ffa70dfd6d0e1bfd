"""Test-only helpers for the punch tests: direct inserts for volume, people with project roles."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import (
    Notification,
    Project,
    ProjectCounter,
    PunchItem,
    PunchItemAssignee,
)


def url(project: Project, suffix: str = "") -> str:
    return f"/api/v1/projects/{project.id}/punch{suffix}"


async def insert_items(project: Project, count: int, assignee_id: str | None = None) -> None:
    """``count`` punch items written straight to the database (numbers taken from the counter)."""
    async with database.sessionmaker() as db:
        now = clock.now()
        rows: list[dict[str, Any]] = []
        links: list[dict[str, Any]] = []
        for number in range(1, count + 1):
            item_id = new_id()
            rows.append(
                {
                    "id": item_id,
                    "project_id": project.id,
                    "workspace_id": project.workspace_id,
                    "punch_number": number,
                    "title": f"Bulk item {number}",
                    "priority": "P2",
                    "status": "OPEN",
                    "created_at": now,
                    "updated_at": now,
                }
            )
            if assignee_id:
                links.append({"punch_item_id": item_id, "user_id": assignee_id, "position": 0})
        await db.execute(PunchItem.__table__.insert(), rows)
        if links:
            await db.execute(PunchItemAssignee.__table__.insert(), links)
        db.add(ProjectCounter(project_id=project.id, kind="punch", value=count))
        await db.commit()


async def notifications_for(user_id: str, project: Project) -> list[Notification]:
    async with database.sessionmaker() as db:
        found = await db.execute(
            select(Notification)
            .where(Notification.user_id == user_id, Notification.project_id == project.id)
            .order_by(Notification.id)
        )
        return list(found.scalars())
