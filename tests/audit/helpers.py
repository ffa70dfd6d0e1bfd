"""Audit entries written straight to the database, for volume and filter tests."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import AuditLog


async def add_entries(
    project_id: str,
    workspace_id: str,
    count: int,
    *,
    action: str = "issue.updated",
    actor_user_id: str | None = None,
    actor_key_id: str | None = None,
    at: datetime | None = None,
) -> list[str]:
    """Insert ``count`` entries in one statement; returns their ids, oldest first."""
    rows: list[dict[str, Any]] = [
        {
            "id": new_id(),
            "workspace_id": workspace_id,
            "project_id": project_id,
            "actor": "key" if actor_key_id else "user" if actor_user_id else "system",
            "actor_user_id": actor_user_id,
            "actor_key_id": actor_key_id,
            "action": action,
            "entity_type": action.split(".")[0],
            "entity_id": new_id(),
            "changes": {"n": [n - 1, n]},
            "request_id": None,
            "ip": None,
            "created_at": at or clock.now(),
        }
        for n in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(AuditLog), rows)
        await db.commit()
    return [row["id"] for row in rows]
