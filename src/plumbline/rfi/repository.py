"""Every RFI query. Reads take a ``Visibility`` so nobody sees an RFI their role hides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import AnySelect, Rows
from plumbline.kit import search
from plumbline.kit.pagination import PageParams
from plumbline.models import Rfi, RfiAssignee, RfiMessage, User
from plumbline.records.fields import Fields
from plumbline.records.repository import Assignees
from plumbline.records.visibility import Visibility

# The response, in order (the module fills in the None ones).
FIELDS = Fields(
    Rfi.__table__,
    {
        "id": "id",
        "projectId": "project_id",
        "rfiNumber": "rfi_number",
        "title": "title",
        "question": "question",
        "status": "status",
        "priority": "priority",
        "dueDate": "due_date",
        "assigneeIds": None,
        "managerId": "manager_id",
        "issueIds": "issue_ids",
        "fileVersionId": "file_version_id",
        "pageNumber": "page_number",
        "pin": "pin",
        "officialResponse": "official_response",
        "answeredAt": "answered_at",
        "answeredBy": "answered_by",
        "closedAt": "closed_at",
        "ballInCourt": None,
        "attachments": None,
        "createdBy": "created_by",
        "createdAt": "created_at",
        "updatedAt": "updated_at",
    },
    json_text=False,  # the export and ballInCourt read them
)
# Responders; contractors and subcontractors see the RFIs they respond to.
ASSIGNEES = Assignees(RfiAssignee, Rfi, "rfi_id")


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
            where.append(ASSIGNEES.has(self.assignee_id))
        if self.q:
            text = self.q.strip()
            match = search.matches(text, Rfi.title, Rfi.question)
            if text.isdecimal() and len(text) < 10:
                match = or_(match, Rfi.rfi_number == int(text))
            where.append(match)
        if self.updated_since is not None:
            where.append(Rfi.updated_at >= self.updated_since)
        return where


class RfiRepository:
    def list_query(self, vis: Visibility, filters: RfiFilters) -> AnySelect:
        query: AnySelect = select(*FIELDS.columns)
        return query.where(*vis.where(Rfi, ASSIGNEES.has), *filters.clauses())

    async def list_rows(
        self, db: AsyncSession, vis: Visibility, filters: RfiFilters, page: PageParams
    ) -> Rows:
        # The page applies updatedSince (the filter's is the export's).
        unpaged = self.list_query(vis, replace(filters, updated_since=None))
        query: AnySelect = search.inline(page.apply(unpaged, Rfi.id), filters.q)
        return (await db.execute(query)).all()

    async def export_batch(
        self,
        db: AsyncSession,
        vis: Visibility,
        filters: RfiFilters,
        before_id: str | None,
        size: int,
    ) -> Rows:
        """Keyset batch for exports: newest first, ids below ``before_id``."""
        query = self.list_query(vis, filters)
        if before_id is not None:
            query = query.where(Rfi.id < before_id)
        return (await db.execute(query.order_by(Rfi.id.desc()).limit(size))).all()

    async def get(
        self, db: AsyncSession, vis: Visibility, rfi_id: str, *, for_update: bool = False
    ) -> Rfi | None:
        query = select(Rfi).where(Rfi.id == rfi_id, *vis.where(Rfi, ASSIGNEES.has))
        if for_update:
            query = query.with_for_update()
        return (await db.execute(query)).scalar_one_or_none()

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
