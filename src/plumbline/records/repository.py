"""Queries the record modules share: referenced ids, pinned files, ordered assignee lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, exists, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import ProjectRole
from plumbline.authz.project import ProjectContext
from plumbline.db import Rows
from plumbline.models import FileVersion, Membership, ProjectMember, User
from plumbline.records.fields import Fields

CONTRIBUTORS = (ProjectRole.CONTRACTOR.value, ProjectRole.SUBCONTRACTOR.value)


async def rows_by_id(db: AsyncSession, fields: Fields, ids: Sequence[str]) -> Rows:
    """The ``fields.columns`` rows of these records, whoever may see them (their events)."""
    query = select(*fields.columns).where(fields.table.c.id.in_(ids))
    return (await db.execute(query)).all()


def _may_take(external: bool, restricted: bool, named: Any, role: str | None) -> bool | None:
    """Whether a member may be given a record of the project (True internal, False external),
    or None when they may not: members who can see the project (not restricted away from it,
    or named on it) and its CONTRACTOR and SUBCONTRACTOR collaborators."""
    if not external and (named is not None or not restricted):
        return True
    if external and named is not None and role in CONTRIBUTORS:
        return False
    return None


def _members(ctx: ProjectContext) -> Any:
    return (
        select(
            Membership.user_id,
            Membership.is_external,
            Membership.restricted,
            ProjectMember.id,
            ProjectMember.project_role,
        )
        .outerjoin(
            ProjectMember,
            and_(
                ProjectMember.project_id == ctx.project.id,
                ProjectMember.user_id == Membership.user_id,
            ),
        )
        .where(Membership.workspace_id == ctx.workspace.id)
    )


async def assignable(
    db: AsyncSession, ctx: ProjectContext, user_ids: Sequence[str]
) -> dict[str, bool]:
    """Of ``user_ids``, those who may be given a record of the project (``_may_take``), each
    with whether they are internal."""
    if not user_ids:
        return {}
    rows = await db.execute(_members(ctx).where(Membership.user_id.in_(user_ids)))
    found: dict[str, bool] = {}
    for user_id, external, restricted, named, role in rows.tuples():
        internal = _may_take(external, restricted, named, role)
        if internal is not None:
            found[user_id] = internal
    return found


async def assignable_people(db: AsyncSession, ctx: ProjectContext) -> list[tuple[str, str]]:
    """Everyone who may be given a record of the project, as (user id, name) by name: one
    query (the choices of an assignee field)."""
    query = _members(ctx).add_columns(User.name).join(User, User.id == Membership.user_id)
    rows = (await db.execute(query.order_by(User.name, User.id))).tuples()
    return [
        (user_id, name)
        for user_id, external, restricted, named, role, name in rows
        if _may_take(external, restricted, named, role) is not None
    ]


async def live_ids(
    db: AsyncSession, model: Any, scope: str, scope_id: str, ids: Sequence[str]
) -> set[str]:
    """Those of ``ids`` naming rows of ``model`` in the project (``scope`` "project") or the
    workspace ``scope_id``, not soft-deleted (for models that soft-delete)."""
    query = select(model.id).where(model.id.in_(ids), getattr(model, f"{scope}_id") == scope_id)
    if hasattr(model, "deleted_at"):
        query = query.where(model.deleted_at.is_(None))
    return set((await db.execute(query)).scalars())


async def file_of_version(db: AsyncSession, project_id: str, version_id: str) -> str | None:
    """The file of a live version of the project, else None."""
    query = select(FileVersion.file_id).where(
        FileVersion.id == version_id,
        FileVersion.project_id == project_id,
        FileVersion.deleted_at.is_(None),
    )
    return (await db.execute(query)).scalar_one_or_none()


class Assignees:
    """An ordered assignee table (``<record>_id``, ``user_id``, ``position``) of a record."""

    def __init__(self, model: Any, record: Any, key: str) -> None:
        self.model, self.record, self.key = model, record, key
        self.fk = getattr(model, key)

    def has(self, user_id: str) -> ColumnElement[bool]:
        """The record (a row of ``record``) is assigned to ``user_id``."""
        return exists().where(self.fk == self.record.id, self.model.user_id == user_id)

    async def of(self, db: AsyncSession, ids: Sequence[str]) -> dict[str, list[str]]:
        """The assignees of many records in one query, in their given order."""
        found: dict[str, list[str]] = {i: [] for i in ids}
        if not ids:
            return found
        rows = await db.execute(
            select(self.fk, self.model.user_id)
            .where(self.fk.in_(ids))
            .order_by(self.fk, self.model.position)
        )
        for record_id, user_id in rows.tuples():
            found[record_id].append(user_id)
        return found

    async def set(self, db: AsyncSession, record_id: str, user_ids: Sequence[str]) -> None:
        await db.execute(delete(self.model).where(self.fk == record_id))
        if user_ids:
            await db.execute(
                insert(self.model),
                [
                    {self.key: record_id, "user_id": user_id, "position": position}
                    for position, user_id in enumerate(user_ids)
                ],
            )
