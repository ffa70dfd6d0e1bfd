"""Test helpers of the issue domain: direct database reads and project tweaks."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import func, select

from plumbline.db import database
from plumbline.models import Issue, Notification
from tests.factories import World
from tests.viewer.helpers import create_file_version


def issues_url(project_id: str) -> str:
    return f"/api/v1/projects/{project_id}/issues"


async def create_issue(
    client: httpx.AsyncClient, project_id: str, headers: dict[str, str], **fields: Any
) -> dict[str, Any]:
    response = await client.post(
        issues_url(project_id), json={"title": "Leak at level 3", **fields}, headers=headers
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def create_file(world: World) -> tuple[str, str]:
    """A drawing with one version in the world's project: (file id, version id)."""
    version = await create_file_version(world.project)
    return version.file_id, version.id


async def count_issues(project_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).select_from(Issue).where(Issue.project_id == project_id)
        return int((await db.execute(query)).scalar_one())


async def notifications(project_id: str, kind: str) -> list[Notification]:
    async with database.sessionmaker() as db:
        query = (
            select(Notification)
            .where(Notification.project_id == project_id, Notification.kind == kind)
            .order_by(Notification.id)
        )
        return list((await db.execute(query)).scalars())
