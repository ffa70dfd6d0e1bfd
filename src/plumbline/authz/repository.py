"""Every statement behind an access decision.

A project as a key or a member sees it, and the file or file version whose project a route
resolves. The access statements read their entities as snapshots (``snapshots.Snapshots``):
a context is read-only, and a service that writes its project or workspace loads it
(``snapshots.tracked``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVarTuple

from sqlalchemy import Row, Select, and_, bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from plumbline.auth.deps import KEY_BY_HASH
from plumbline.auth.session import LIVE_SESSION
from plumbline.models import (
    ApiKey,
    File,
    FileVersion,
    Membership,
    Project,
    ProjectMember,
    User,
    Workspace,
)
from plumbline.snapshots import Snapshots

Ts = TypeVarTuple("Ts")
Column = InstrumentedAttribute

# Statements built once (see auth.session.LIVE_SESSION), parameter ``project_id``.
_LIVE_PROJECT = and_(Project.id == bindparam("project_id"), Project.deleted_at.is_(None))
_LIVE_WORKSPACE = and_(Workspace.id == Project.workspace_id, Workspace.deleted_at.is_(None))
# The key (``key_hash``) with the live project and its live workspace (None, None when absent).
KEY_PROJECT = Snapshots(
    KEY_BY_HASH.add_columns(Project, Workspace)
    .outerjoin_from(ApiKey, Project, _LIVE_PROJECT)
    .outerjoin_from(Project, Workspace, _LIVE_WORKSPACE)
)
# The session and its user with the live project, its live workspace, the user's membership of
# it and their named access to the project (id, role); None where there is none.
SESSION_ACCESS = Snapshots(
    LIVE_SESSION.add_columns(
        Project, Workspace, Membership, ProjectMember.id, ProjectMember.project_role
    )
    .outerjoin_from(User, Project, _LIVE_PROJECT)
    .outerjoin_from(Project, Workspace, _LIVE_WORKSPACE)
    .outerjoin_from(
        Workspace,
        Membership,
        and_(Membership.workspace_id == Workspace.id, Membership.user_id == User.id),
    )
    .outerjoin_from(
        Project,
        ProjectMember,
        and_(ProjectMember.project_id == Project.id, ProjectMember.user_id == User.id),
    )
)
# A live project in a live workspace (``project_id``).
KEY_ACCESS = Snapshots(
    select(Project, Workspace).join(Workspace, _LIVE_WORKSPACE).where(_LIVE_PROJECT)
)
# The same with the user's (``user_id``) membership of the workspace and named access.
_MEMBER = (
    select(Project, Workspace, Membership, ProjectMember.id, ProjectMember.project_role)
    .join(Workspace, _LIVE_WORKSPACE)
    .join(
        Membership,
        and_(
            Membership.workspace_id == Project.workspace_id,
            Membership.user_id == bindparam("user_id"),
        ),
    )
    .outerjoin(
        ProjectMember,
        and_(
            ProjectMember.project_id == Project.id,
            ProjectMember.user_id == bindparam("user_id"),
        ),
    )
)
MEMBER_ACCESS = Snapshots(_MEMBER.where(_LIVE_PROJECT))

# Every live project of the live workspaces the user (``user_id``) belongs to that they may see
# (internal members unless restricted; restricted members and externals where named), with the
# columns of MEMBER_ACCESS.
MEMBER_PROJECTS = Snapshots(
    _MEMBER.where(
        Project.deleted_at.is_(None),
        or_(
            and_(Membership.is_external.is_(False), Membership.restricted.is_(False)),
            ProjectMember.id.is_not(None),
        ),
    ).order_by(Project.id)
)


def with_member_access(
    query: Select[*Ts], left: Any, user_id: Column[str], project_id: Column[str | None]
) -> Select[*tuple[Any, ...]]:
    """``query`` (from ``left``) with the columns of MEMBER_ACCESS for a user and a project
    named by columns of its own rows: the live project, its live workspace, the user's
    membership and named access, None where there is none (a calendar feed and its owner)."""
    return (
        query.add_columns(
            Project, Workspace, Membership, ProjectMember.id, ProjectMember.project_role
        )
        .outerjoin_from(left, Project, and_(Project.id == project_id, Project.deleted_at.is_(None)))
        .outerjoin_from(Project, Workspace, _LIVE_WORKSPACE)
        .outerjoin_from(
            Workspace,
            Membership,
            and_(Membership.workspace_id == Workspace.id, Membership.user_id == user_id),
        )
        .outerjoin_from(
            Project,
            ProjectMember,
            and_(ProjectMember.project_id == Project.id, ProjectMember.user_id == user_id),
        )
    )


async def key_access(db: AsyncSession, project_id: str) -> tuple[Any, ...] | None:
    """``(project, workspace)`` when both are live."""
    return await KEY_ACCESS.first(db, {"project_id": project_id})


async def member_access(db: AsyncSession, user_id: str, project_id: str) -> tuple[Any, ...] | None:
    """``(project, workspace, membership, named id, project role)`` when the user is a member of
    the live project's live workspace (the named columns None without named access)."""
    return await MEMBER_ACCESS.first(db, {"user_id": user_id, "project_id": project_id})


async def member_projects(db: AsyncSession, user_id: str) -> list[tuple[Any, ...]]:
    """MEMBER_PROJECTS: what ``member_context`` needs for each project the user may see."""
    return await MEMBER_PROJECTS.all(db, {"user_id": user_id})


async def live_file(db: AsyncSession, file_id: str) -> File | None:
    """A live file, whatever its project (the caller checks the project next)."""
    query = select(File).where(File.id == file_id, File.deleted_at.is_(None))
    return (await db.execute(query)).scalar_one_or_none()


async def live_version(db: AsyncSession, version_id: str) -> FileVersion | None:
    """A live version of a live file, whatever its project (the caller checks it next)."""
    query = (
        select(FileVersion)
        .join(File, File.id == FileVersion.file_id)
        .where(
            FileVersion.id == version_id,
            FileVersion.deleted_at.is_(None),
            File.deleted_at.is_(None),
        )
    )
    return (await db.execute(query)).scalar_one_or_none()


async def project_managers(db: AsyncSession, workspace_id: str, project_id: str) -> list[str]:
    """The internal MANAGER+ members who can see the project (not restricted away from it, or
    named on it)."""
    named = (
        select(ProjectMember.id)
        .where(ProjectMember.project_id == project_id, ProjectMember.user_id == Membership.user_id)
        .exists()
    )
    query = select(Membership.user_id).where(
        Membership.workspace_id == workspace_id,
        Membership.is_external.is_(False),
        Membership.role.in_(("SUPER_ADMIN", "ADMIN", "MANAGER")),
        or_(Membership.restricted.is_(False), named),
    )
    return list((await db.execute(query)).scalars())


async def members_of(
    db: AsyncSession, workspace_ids: Sequence[str]
) -> Sequence[Row[str, str, str, bool, bool, str, str]]:
    """Every member of the workspaces: workspace, user, role, external, restricted, name, e-mail."""
    query = select(
        Membership.workspace_id,
        Membership.user_id,
        Membership.role,
        Membership.is_external,
        Membership.restricted,
        User.name,
        User.email,
    ).join(User, User.id == Membership.user_id)
    return (await db.execute(query.where(Membership.workspace_id.in_(workspace_ids)))).all()


async def named_on(db: AsyncSession, project_ids: Sequence[str]) -> Sequence[Row[str, str]]:
    """Who is named on the projects (restricted members, external collaborators): project, user."""
    query = select(ProjectMember.project_id, ProjectMember.user_id)
    return (await db.execute(query.where(ProjectMember.project_id.in_(project_ids)))).all()
