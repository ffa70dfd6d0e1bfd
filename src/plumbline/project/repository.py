"""Project queries. Lists select columns (never entities) on the session's connection."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Row,
    and_,
    bindparam,
    case,
    delete,
    func,
    null,
    or_,
    select,
)
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import AnySelect, Rows, core_rows
from plumbline.kit.pagination import Paged, PageParams
from plumbline.models import Membership, Project, ProjectMember, User
from plumbline.records.fields import Fields

# The response, in order (timestamps are read without UTCDateTime's per-value conversion).
FIELDS = Fields(
    Project.__table__,
    {
        "id": "id",
        "workspaceId": "workspace_id",
        "name": "name",
        "stage": "stage",
        "location": "location",
        "currency": "currency",
        "startDate": "start_date",
        "endDate": "end_date",
        "projectNumber": "project_number",
        "timezone": "timezone",
        "operationsMode": "operations_mode",
        "createdAt": "created_at",
        "updatedAt": "updated_at",
    },
)


_LIVE_PROJECTS = select(*FIELDS.columns).where(
    Project.workspace_id == bindparam("workspace_id"), Project.deleted_at.is_(None)
)
_NAMED = Project.id.in_(
    select(ProjectMember.project_id).where(
        ProjectMember.user_id == bindparam("named_for"),
        ProjectMember.workspace_id == bindparam("workspace_id"),
    )
)
# The busiest list: statements built once, parameters workspace_id (and named_for).
_ALL_PROJECTS = Paged(_LIVE_PROJECTS, Project.id)
_NAMED_PROJECTS = Paged(_LIVE_PROJECTS.where(_NAMED), Project.id)


async def list_projects(
    db: AsyncSession, *, workspace_id: str, named_for: str | None, page: PageParams
) -> Rows:
    """The workspace's live projects, newest first; only those named for ``named_for`` when set."""
    query, params = page.bind(_ALL_PROJECTS if named_for is None else _NAMED_PROJECTS)
    return await core_rows(
        db, query, {**params, "workspace_id": workspace_id, "named_for": named_for}
    )


def _team_filter(workspace_id: str) -> ColumnElement[bool]:
    """Who sees the project: named on it, or an internal member without restrictions."""
    return and_(
        Membership.workspace_id == workspace_id,
        or_(
            ProjectMember.id.is_not(None),
            and_(Membership.is_external.is_(False), Membership.restricted.is_(False)),
        ),
    )


def _named_on(project_id: str) -> ColumnElement[bool]:
    return and_(ProjectMember.project_id == project_id, ProjectMember.user_id == Membership.user_id)


async def list_team(
    db: AsyncSession,
    *,
    workspace_id: str,
    project_id: str,
    page: PageParams,
    external_viewer: str | None = None,
) -> Rows:
    """Everyone who sees the project. For an external collaborator (``external_viewer``, their
    user id): only the internal members who see it and themselves, and only their own e-mail
    (the others' is NULL), so nothing more leaves the database."""
    email: ColumnElement[Any] = User.email.expression
    who = _team_filter(workspace_id)
    if external_viewer is not None:
        own = User.id == external_viewer
        email = case((own, User.email), else_=null()).label("email")
        who = and_(who, or_(Membership.is_external.is_(False), own))
    query: AnySelect = (
        select(
            Membership.id,
            User.id.label("user_id"),
            User.name,
            email,
            Membership.role,
            ProjectMember.project_role,
            Membership.is_external,
            Membership.joined_at,  # the change time of an updatedSince page
        )
        .join(User, User.id == Membership.user_id)
        .outerjoin(ProjectMember, _named_on(project_id))
        .where(who)
    )
    return await core_rows(db, page.apply(query, Membership.id))


async def count_team(db: AsyncSession, *, workspace_id: str, project_id: str) -> int:
    query = (
        select(func.count())
        .select_from(Membership)
        .outerjoin(ProjectMember, _named_on(project_id))
        .where(_team_filter(workspace_id))
    )
    return int((await db.execute(query)).scalar_one())


async def remove_named_access(
    db: AsyncSession, *, project_id: str, user_id: str
) -> Row[str, str | None] | None:
    """Delete the user's ProjectMember row; returns its (id, project_role), None when absent."""
    result = await db.execute(
        delete(ProjectMember)
        .where(ProjectMember.project_id == project_id, ProjectMember.user_id == user_id)
        .returning(ProjectMember.id, ProjectMember.project_role)
    )
    return result.first()
