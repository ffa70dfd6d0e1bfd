"""Every punch query; each read is limited to what the caller may see (``Visibility``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, Select, and_, delete, exists, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import (
    FileVersion,
    Membership,
    Project,
    ProjectMember,
    PunchItem,
    PunchItemAssignee,
    User,
)
from plumbline.punch.schemas import PunchFilters


@dataclass(frozen=True)
class Visibility:
    """The punch items of one project, or only those assigned to ``assigned_to`` (externals)."""

    project_id: str
    assigned_to: str | None = None


COLUMNS = (
    PunchItem.id,
    PunchItem.project_id,
    PunchItem.punch_number,
    PunchItem.title,
    PunchItem.location,
    PunchItem.trade,
    PunchItem.priority,
    PunchItem.status,
    PunchItem.due_date,
    PunchItem.notes,
    PunchItem.file_version_id,
    PunchItem.page_number,
    PunchItem.pin,
    PunchItem.closed_at,
    PunchItem.created_by,
    PunchItem.created_at,
    PunchItem.updated_at,
)


def _assigned(user_id: str) -> Any:
    return exists().where(
        PunchItemAssignee.punch_item_id == PunchItem.id, PunchItemAssignee.user_id == user_id
    )


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _visible(query: Select[Any], vis: Visibility) -> Select[Any]:
    query = query.where(PunchItem.project_id == vis.project_id, PunchItem.deleted_at.is_(None))
    if vis.assigned_to is not None:
        query = query.where(_assigned(vis.assigned_to))
    return query


def _filtered(query: Select[Any], vis: Visibility, filters: PunchFilters) -> Select[Any]:
    query = _visible(query, vis)
    if filters.status:
        query = query.where(PunchItem.status == filters.status)
    if filters.priority:
        query = query.where(PunchItem.priority == filters.priority)
    if filters.trade:
        query = query.where(PunchItem.trade == filters.trade)
    if filters.assignee_id:
        query = query.where(_assigned(filters.assignee_id))
    if filters.updated_since:
        query = query.where(PunchItem.updated_at >= filters.updated_since)
    if filters.q:
        pattern = _like(filters.q)
        query = query.where(
            or_(
                PunchItem.title.ilike(pattern, escape="\\"),
                PunchItem.notes.ilike(pattern, escape="\\"),
                PunchItem.location.ilike(pattern, escape="\\"),
            )
        )
    return query


def list_query(vis: Visibility, filters: PunchFilters) -> Select[Any]:
    """The rows of a list page, newest first (the caller applies the page)."""
    return _filtered(select(*COLUMNS), vis, filters)


async def rows(db: AsyncSession, query: Select[Any]) -> Sequence[Row[Any]]:
    found: Sequence[Row[Any]] = (await db.execute(query)).all()
    return found


async def export_batch(
    db: AsyncSession, vis: Visibility, filters: PunchFilters, before_id: str | None, size: int
) -> Sequence[Row[Any]]:
    query = _filtered(select(*COLUMNS), vis, filters)
    if before_id is not None:
        query = query.where(PunchItem.id < before_id)
    found: Sequence[Row[Any]] = (
        await db.execute(query.order_by(PunchItem.id.desc()).limit(size))
    ).all()
    return found


async def get(db: AsyncSession, vis: Visibility, punch_id: str) -> PunchItem | None:
    query = _visible(select(PunchItem), vis).where(PunchItem.id == punch_id)
    item: PunchItem | None = (await db.execute(query)).scalar_one_or_none()
    return item


async def get_many(db: AsyncSession, vis: Visibility, ids: Sequence[str]) -> dict[str, PunchItem]:
    query = _visible(select(PunchItem), vis).where(PunchItem.id.in_(ids))
    return {item.id: item for item in (await db.execute(query)).scalars()}


async def assignees_for(db: AsyncSession, ids: Sequence[str]) -> dict[str, list[str]]:
    """``assigneeIds`` of many items in one query, in their given order."""
    found: dict[str, list[str]] = {i: [] for i in ids}
    if not ids:
        return found
    result = await db.execute(
        select(PunchItemAssignee.punch_item_id, PunchItemAssignee.user_id)
        .where(PunchItemAssignee.punch_item_id.in_(ids))
        .order_by(PunchItemAssignee.punch_item_id, PunchItemAssignee.position)
    )
    for punch_item_id, user_id in result:
        found[punch_item_id].append(user_id)
    return found


async def assignee_names_for(db: AsyncSession, ids: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {i: [] for i in ids}
    if not ids:
        return found
    result = await db.execute(
        select(PunchItemAssignee.punch_item_id, User.name, User.email)
        .join(User, User.id == PunchItemAssignee.user_id)
        .where(PunchItemAssignee.punch_item_id.in_(ids))
        .order_by(PunchItemAssignee.punch_item_id, PunchItemAssignee.position)
    )
    for punch_item_id, name, email in result:
        found[punch_item_id].append(f"{name} <{email}>")
    return found


async def set_assignees(db: AsyncSession, punch_item_id: str, user_ids: Sequence[str]) -> None:
    await db.execute(
        delete(PunchItemAssignee).where(PunchItemAssignee.punch_item_id == punch_item_id)
    )
    if user_ids:
        await db.execute(
            insert(PunchItemAssignee),
            [
                {"punch_item_id": punch_item_id, "user_id": user_id, "position": index}
                for index, user_id in enumerate(user_ids)
            ],
        )


async def assignable(db: AsyncSession, project: Project, user_ids: Sequence[str]) -> set[str]:
    """Of ``user_ids``, those who may hold a punch item: internal members who can see the
    project, and its CONTRACTOR and SUBCONTRACTOR collaborators."""
    if not user_ids:
        return set()
    result = await db.execute(
        select(Membership.user_id)
        .outerjoin(
            ProjectMember,
            and_(
                ProjectMember.project_id == project.id,
                ProjectMember.user_id == Membership.user_id,
            ),
        )
        .where(
            Membership.workspace_id == project.workspace_id,
            Membership.user_id.in_(user_ids),
            or_(
                and_(Membership.is_external.is_(False), Membership.restricted.is_(False)),
                and_(Membership.is_external.is_(False), ProjectMember.id.is_not(None)),
                and_(
                    Membership.is_external.is_(True),
                    ProjectMember.project_role.in_(("CONTRACTOR", "SUBCONTRACTOR")),
                ),
            ),
        )
    )
    return set(result.scalars())


async def file_version_in_project(db: AsyncSession, project_id: str, version_id: str) -> bool:
    found = await db.execute(
        select(FileVersion.id).where(
            FileVersion.id == version_id,
            FileVersion.project_id == project_id,
            FileVersion.deleted_at.is_(None),
        )
    )
    return found.first() is not None
