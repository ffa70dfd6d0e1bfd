"""Helpers shared by the workspace, member and invite tests: URLs and direct database reads."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.models import AuditLog, Membership, ProjectMember, User, Workspace

API = "/api/v1"


def ws_url(workspace_id: str, rest: str = "") -> str:
    return f"{API}/workspaces/{workspace_id}{rest}"


def unique(prefix: str) -> str:
    return f"{prefix}-{new_id()[-10:]}"


async def member_of(
    client: httpx.AsyncClient, workspace_id: str, user_id: str, headers: dict[str, str]
) -> dict[str, Any] | None:
    response = await client.get(ws_url(workspace_id, "/members"), headers=headers)
    assert response.status_code == 200, response.text
    return next((m for m in response.json() if m["userId"] == user_id), None)


async def membership(workspace_id: str, user_id: str) -> Membership | None:
    async with database.sessionmaker() as db:
        return (
            await db.execute(
                select(Membership).where(
                    Membership.workspace_id == workspace_id, Membership.user_id == user_id
                )
            )
        ).scalar_one_or_none()


async def project_roles(workspace_id: str, user_id: str) -> dict[str, str | None]:
    async with database.sessionmaker() as db:
        rows = await db.execute(
            select(ProjectMember.project_id, ProjectMember.project_role).where(
                ProjectMember.workspace_id == workspace_id, ProjectMember.user_id == user_id
            )
        )
        return {project_id: role for project_id, role in rows.tuples()}  # noqa: C416


async def is_verified(user_id: str) -> bool:
    async with database.sessionmaker() as db:
        return bool(
            (await db.execute(select(User.email_verified).where(User.id == user_id))).scalar_one()
        )


async def audit_actions(workspace_id: str, entity_id: str | None = None) -> list[AuditLog]:
    async with database.sessionmaker() as db:
        query = select(AuditLog).where(AuditLog.workspace_id == workspace_id)
        if entity_id is not None:
            query = query.where(AuditLog.entity_id == entity_id)
        return list((await db.execute(query.order_by(AuditLog.id))).scalars())


async def workspace_row(workspace_id: str) -> Workspace | None:
    async with database.sessionmaker() as db:
        return await db.get(Workspace, workspace_id)
