"""Every RFI query. Reads take a ``Viewer`` so nobody sees an RFI their role hides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Row,
    Select,
    and_,
    delete,
    exists,
    false,
    insert,
    or_,
    select,
    true,
)
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import ProjectRole
from plumbline.authz.project import ProjectContext
from plumbline.kit.pagination import PageParams
from plumbline.models import (
    FileVersion,
    Issue,
    Membership,
    ProjectMember,
    Rfi,
    RfiAssignee,
    RfiMessage,
    User,
)

# The columns a list or export reads (never whole entities).
RFI_COLUMNS = (
    Rfi.id,
    Rfi.project_id,
    Rfi.rfi_number,
    Rfi.title,
    Rfi.question,
    Rfi.status,
    Rfi.priority,
    Rfi.due_date,
    Rfi.manager_id,
    Rfi.issue_ids,
    Rfi.file_version_id,
    Rfi.page_number,
    Rfi.pin,
    Rfi.official_response,
    Rfi.answered_at,
    Rfi.answered_by,
    Rfi.closed_at,
    Rfi.created_by,
    Rfi.created_at,
    Rfi.updated_at,
)
AnySelect = Select[*tuple[Any, ...]]
Rows = Sequence[Row[*tuple[Any, ...]]]
RESPONDER_ROLES = (ProjectRole.CONTRACTOR.value, ProjectRole.SUBCONTRACTOR.value)


@dataclass(frozen=True)
class Viewer:
    """Which RFIs of a project the caller may see: plain values, usable after the request."""

    project_id: str
    user_id: str | None
    project_role: str | None
    is_external: bool
    clients_see_rfis: bool

    @classmethod
    def of(cls, ctx: ProjectContext) -> Viewer:
        return cls(
            project_id=ctx.project.id,
            user_id=ctx.user_id,
            project_role=ctx.project_role,
            is_external=ctx.is_external,
            clients_see_rfis=bool(ctx.project.client_visibility.get("showRfis")),
        )

    def clause(self) -> ColumnElement[bool]:
        """Internal members and keys see every RFI; contractors and subcontractors the ones they
        respond to; clients all of them only when the project shares RFIs with clients."""
        if not self.is_external:
            return true()
        if self.project_role == ProjectRole.CLIENT.value:
            return true() if self.clients_see_rfis else false()
        if self.project_role in RESPONDER_ROLES and self.user_id:
            return _is_responder(self.user_id)
        return false()


def _is_responder(user_id: str) -> ColumnElement[bool]:
    return exists().where(RfiAssignee.rfi_id == Rfi.id, RfiAssignee.user_id == user_id)


@dataclass(frozen=True)
class RfiFilters:
    status: str | None = None
    priority: str | None = None
    assignee_id: str | None = None
    q: str | None = None
    updated_since: datetime | None = None

    def clauses(self) -> list[ColumnElement[bool]]:
        where: list[ColumnElement[bool]] = []
        if self.status:
            where.append(Rfi.status == self.status)
        if self.priority:
            where.append(Rfi.priority == self.priority)
        if self.assignee_id:
            where.append(_is_responder(self.assignee_id))
        if self.q:
            text = self.q.strip()
            match = or_(
                Rfi.title.icontains(text, autoescape=True),
                Rfi.question.icontains(text, autoescape=True),
            )
            if text.isdigit() and len(text) < 10:
                match = or_(match, Rfi.rfi_number == int(text))
            where.append(match)
        if self.updated_since is not None:
            where.append(Rfi.updated_at >= self.updated_since)
        return where


class RfiRepository:
    def _visible(self, viewer: Viewer) -> list[ColumnElement[bool]]:
        return [Rfi.project_id == viewer.project_id, Rfi.deleted_at.is_(None), viewer.clause()]

    def list_query(self, viewer: Viewer, filters: RfiFilters) -> AnySelect:
        query: AnySelect = select(*RFI_COLUMNS)
        return query.where(*self._visible(viewer), *filters.clauses())

    async def list_rows(
        self, db: AsyncSession, viewer: Viewer, filters: RfiFilters, page: PageParams
    ) -> Rows:
        query: AnySelect = page.apply(self.list_query(viewer, filters), Rfi.id)
        return (await db.execute(query)).all()

    async def export_batch(
        self,
        db: AsyncSession,
        viewer: Viewer,
        filters: RfiFilters,
        before_id: str | None,
        size: int,
    ) -> Rows:
        """Keyset batch for exports: newest first, ids below ``before_id``."""
        query = self.list_query(viewer, filters)
        if before_id is not None:
            query = query.where(Rfi.id < before_id)
        return (await db.execute(query.order_by(Rfi.id.desc()).limit(size))).all()

    async def get(
        self, db: AsyncSession, viewer: Viewer, rfi_id: str, *, for_update: bool = False
    ) -> Rfi | None:
        query = select(Rfi).where(Rfi.id == rfi_id, *self._visible(viewer))
        if for_update:
            query = query.with_for_update()
        return (await db.execute(query)).scalar_one_or_none()

    async def assignees_of(self, db: AsyncSession, rfi_ids: Sequence[str]) -> dict[str, list[str]]:
        """Responders of many RFIs in one query, in the order they were given."""
        found: dict[str, list[str]] = {rfi_id: [] for rfi_id in rfi_ids}
        if not rfi_ids:
            return found
        rows = await db.execute(
            select(RfiAssignee.rfi_id, RfiAssignee.user_id)
            .where(RfiAssignee.rfi_id.in_(rfi_ids))
            .order_by(RfiAssignee.rfi_id, RfiAssignee.position)
        )
        for rfi_id, user_id in rows.tuples():
            found[rfi_id].append(user_id)
        return found

    async def set_assignees(self, db: AsyncSession, rfi_id: str, user_ids: Sequence[str]) -> None:
        await db.execute(delete(RfiAssignee).where(RfiAssignee.rfi_id == rfi_id))
        if user_ids:
            await db.execute(
                insert(RfiAssignee),
                [
                    {"rfi_id": rfi_id, "user_id": user_id, "position": position}
                    for position, user_id in enumerate(user_ids)
                ],
            )

    async def project_people(
        self, db: AsyncSession, workspace_id: str, project_id: str, user_ids: Sequence[str]
    ) -> dict[str, tuple[bool, str | None]]:
        """``{user_id: (is_external, project_role)}`` for those of ``user_ids`` who can see the
        project (internal members not restricted away from it, or named on it)."""
        if not user_ids:
            return {}
        rows = await db.execute(
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
                    ProjectMember.project_id == project_id,
                    ProjectMember.user_id == Membership.user_id,
                ),
            )
            .where(Membership.workspace_id == workspace_id, Membership.user_id.in_(user_ids))
        )
        people: dict[str, tuple[bool, str | None]] = {}
        for user_id, is_external, restricted, named, project_role in rows.tuples():
            if (is_external or restricted) and named is None:
                continue
            people[user_id] = (is_external, project_role if is_external else None)
        return people

    async def file_version_in_project(
        self, db: AsyncSession, project_id: str, file_version_id: str
    ) -> bool:
        found = await db.execute(
            select(FileVersion.id).where(
                FileVersion.id == file_version_id,
                FileVersion.project_id == project_id,
                FileVersion.deleted_at.is_(None),
            )
        )
        return found.first() is not None

    async def known_issue_ids(
        self, db: AsyncSession, project_id: str, issue_ids: Sequence[str]
    ) -> set[str]:
        """The ids among ``issue_ids`` naming live issues of the project."""
        found = await db.execute(
            select(Issue.id).where(
                Issue.id.in_(issue_ids), Issue.project_id == project_id, Issue.deleted_at.is_(None)
            )
        )
        return set(found.scalars())

    async def message(self, db: AsyncSession, rfi_id: str, message_id: str) -> RfiMessage | None:
        found = await db.execute(
            select(RfiMessage).where(RfiMessage.id == message_id, RfiMessage.rfi_id == rfi_id)
        )
        return found.scalar_one_or_none()

    async def message_rows(self, db: AsyncSession, rfi_id: str, page: PageParams) -> Rows:
        query: AnySelect = (
            select(
                RfiMessage.id,
                RfiMessage.rfi_id,
                RfiMessage.project_id,
                RfiMessage.body,
                RfiMessage.created_by,
                RfiMessage.created_at,
                User.name.label("author_name"),
            )
            .outerjoin(User, User.id == RfiMessage.created_by)
            .where(RfiMessage.rfi_id == rfi_id)
        )
        paged: AnySelect = page.apply(query, RfiMessage.id)
        return (await db.execute(paged)).all()

    async def user_names(self, db: AsyncSession, user_ids: Sequence[str]) -> dict[str, str]:
        if not user_ids:
            return {}
        rows = await db.execute(select(User.id, User.name).where(User.id.in_(user_ids)))
        return dict(rows.tuples().all())


rfi_repository = RfiRepository()
