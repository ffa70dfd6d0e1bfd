"""Member and invite queries; every read is scoped to one workspace (or to a token hash)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Row, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import AnySelect, Rows
from plumbline.kit.pagination import PageParams
from plumbline.models import (
    EmailInvite,
    Invite,
    Membership,
    Project,
    ProjectMember,
    User,
    Workspace,
)

MEMBER_COLUMNS: tuple[Any, ...] = (
    Membership.id,
    Membership.user_id,
    User.name,
    User.email,
    Membership.role,
    Membership.is_external,
    Membership.restricted,
    Membership.joined_at,
)


def _members(workspace_id: str) -> AnySelect:
    query: AnySelect = select(*MEMBER_COLUMNS).join(User, User.id == Membership.user_id)
    return query.where(Membership.workspace_id == workspace_id)


async def list_members(db: AsyncSession, workspace_id: str, page: PageParams) -> Rows:
    return (await db.execute(page.apply(_members(workspace_id), Membership.id))).all()


async def member_row(db: AsyncSession, workspace_id: str, user_id: str) -> Row[Any] | None:
    query = _members(workspace_id).where(Membership.user_id == user_id)
    return (await db.execute(query)).first()


async def project_ids_by_user(
    db: AsyncSession, workspace_id: str, user_ids: Iterable[str]
) -> dict[str, list[str]]:
    """Named (live) projects per user, in one query."""
    ids = list(user_ids)
    if not ids:
        return {}
    rows = await db.execute(
        select(ProjectMember.user_id, ProjectMember.project_id)
        .join(Project, Project.id == ProjectMember.project_id)
        .where(
            ProjectMember.workspace_id == workspace_id,
            ProjectMember.user_id.in_(ids),
            Project.deleted_at.is_(None),
        )
        .order_by(ProjectMember.project_id)
    )
    found: dict[str, list[str]] = {}
    for user_id, project_id in rows.tuples():
        found.setdefault(user_id, []).append(project_id)
    return found


async def membership(
    db: AsyncSession, workspace_id: str, user_id: str, *, lock: bool = False
) -> Membership | None:
    query = select(Membership).where(
        Membership.workspace_id == workspace_id, Membership.user_id == user_id
    )
    if lock:
        query = query.with_for_update()
    return (await db.execute(query)).scalar_one_or_none()


async def is_member_email(db: AsyncSession, workspace_id: str, email: str) -> bool:
    query = (
        select(Membership.id)
        .join(User, User.id == Membership.user_id)
        .where(Membership.workspace_id == workspace_id, func.lower(User.email) == email.lower())
    )
    return (await db.execute(query.limit(1))).first() is not None


async def lock_workspace(db: AsyncSession, workspace_id: str) -> None:
    """Serialises seat and super-admin checks of one workspace (no-op on SQLite, which
    already runs one writer at a time)."""
    await db.execute(select(Workspace.id).where(Workspace.id == workspace_id).with_for_update())


async def belongs_elsewhere(db: AsyncSession, user_id: str, workspace_id: str) -> bool:
    """Whether the user is a member of a live workspace other than ``workspace_id``."""
    query = (
        select(Membership.id)
        .join(Workspace, Workspace.id == Membership.workspace_id)
        .where(
            Membership.user_id == user_id,
            Membership.workspace_id != workspace_id,
            Workspace.deleted_at.is_(None),
        )
    )
    return (await db.execute(query.limit(1))).first() is not None


async def count_internal(db: AsyncSession, workspace_id: str, role: str | None = None) -> int:
    """The workspace's internal members (of ``role`` when given)."""
    query = select(func.count()).where(
        Membership.workspace_id == workspace_id, Membership.is_external.is_(False)
    )
    if role is not None:
        query = query.where(Membership.role == role)
    return int((await db.execute(query)).scalar_one())


async def live_project_ids(db: AsyncSession, workspace_id: str, ids: Iterable[str]) -> set[str]:
    wanted = list(set(ids))
    if not wanted:
        return set()
    rows = await db.execute(
        select(Project.id).where(
            Project.workspace_id == workspace_id,
            Project.id.in_(wanted),
            Project.deleted_at.is_(None),
        )
    )
    return set(rows.scalars())


async def project_members(db: AsyncSession, workspace_id: str, user_id: str) -> list[ProjectMember]:
    rows = await db.execute(
        select(ProjectMember)
        .where(ProjectMember.workspace_id == workspace_id, ProjectMember.user_id == user_id)
        .order_by(ProjectMember.created_at, ProjectMember.id)
    )
    return list(rows.scalars())


async def delete_project_members(
    db: AsyncSession, workspace_id: str, user_id: str, project_ids: Iterable[str] | None = None
) -> None:
    """The user's named projects in the workspace (only ``project_ids`` when given)."""
    query = delete(ProjectMember).where(
        ProjectMember.workspace_id == workspace_id, ProjectMember.user_id == user_id
    )
    if project_ids is not None:
        query = query.where(ProjectMember.project_id.in_(list(project_ids)))
    await db.execute(query)


# Link and e-mail invites (``model``): live ones are those not revoked.
AnyInvite = TypeVar("AnyInvite", Invite, EmailInvite)


async def list_invites(
    db: AsyncSession, model: type[AnyInvite], workspace_id: str, page: PageParams
) -> Sequence[AnyInvite]:
    query = select(model).where(model.workspace_id == workspace_id, model.revoked_at.is_(None))
    return (await db.execute(page.apply(query, model.id))).scalars().all()


async def invite(
    db: AsyncSession,
    model: type[AnyInvite],
    workspace_id: str,
    invite_id: str,
    *,
    lock: bool = False,
) -> AnyInvite | None:
    query = select(model).where(
        model.workspace_id == workspace_id, model.id == invite_id, model.revoked_at.is_(None)
    )
    if lock:
        query = query.with_for_update()
    return (await db.execute(query)).scalar_one_or_none()


async def invite_by_token_hash(
    db: AsyncSession, token_hash: str, model: type[AnyInvite], *, lock: bool = False
) -> tuple[AnyInvite, Workspace] | None:
    query = (
        select(model, Workspace)
        .join(Workspace, Workspace.id == model.workspace_id)
        .where(model.token_hash == token_hash, Workspace.deleted_at.is_(None))
    )
    if lock:
        query = query.with_for_update(of=model)
    row = (await db.execute(query)).first()
    return None if row is None else (row[0], row[1])


async def pending_email_invite_exists(
    db: AsyncSession, workspace_id: str, email: str, now: datetime, *, exclude_id: str | None = None
) -> bool:
    query = select(EmailInvite.id).where(
        EmailInvite.workspace_id == workspace_id,
        EmailInvite.email == email,
        EmailInvite.revoked_at.is_(None),
        EmailInvite.accepted_at.is_(None),
        EmailInvite.expires_at > now,
    )
    if exclude_id is not None:
        query = query.where(EmailInvite.id != exclude_id)
    return (await db.execute(query.limit(1))).first() is not None
