"""Every punch query; each read is limited to what the caller may see (``Visibility``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit import search
from plumbline.models import PunchItem, PunchItemAssignee, User
from plumbline.punch.schemas import PunchFilters
from plumbline.records.fields import Fields
from plumbline.records.repository import Assignees
from plumbline.records.visibility import Visibility

FIELDS = Fields(
    PunchItem.__table__,
    {
        "id": "id",
        "projectId": "project_id",
        "punchNumber": "punch_number",
        "title": "title",
        "location": "location",
        "trade": "trade",
        "priority": "priority",
        "status": "status",
        "assigneeIds": None,
        "dueDate": "due_date",
        "notes": "notes",
        "fileVersionId": "file_version_id",
        "pageNumber": "page_number",
        "pin": "pin",
        "referencePhotos": None,
        "closedAt": "closed_at",
        "createdBy": "created_by",
        "createdAt": "created_at",
        "updatedAt": "updated_at",
    },
)
ASSIGNEES = Assignees(PunchItemAssignee, PunchItem, "punch_item_id")


def _visible(query: Select[Any], vis: Visibility) -> Select[Any]:
    """Contractors see the items assigned to them."""
    return query.where(*vis.where(PunchItem, ASSIGNEES.has))


def filtered(vis: Visibility, filters: PunchFilters) -> Select[Any]:
    """The rows of the list and the export, ``FIELDS.columns`` (the caller orders and pages)."""
    query = _visible(select(*FIELDS.columns), vis)
    if filters.status:
        query = query.where(PunchItem.status == filters.status)
    if filters.priority:
        query = query.where(PunchItem.priority == filters.priority)
    if filters.trade:
        query = query.where(PunchItem.trade == filters.trade)
    if filters.assignee_id:
        query = query.where(ASSIGNEES.has(filters.assignee_id))
    if filters.updated_since:
        query = query.where(PunchItem.updated_at >= filters.updated_since)
    if filters.q:
        query = query.where(
            search.matches(filters.q, PunchItem.title, PunchItem.notes, PunchItem.location)
        )
    return query


async def rows(db: AsyncSession, query: Select[Any]) -> Sequence[Row[Any]]:
    found: Sequence[Row[Any]] = (await db.execute(query)).all()
    return found


async def get(db: AsyncSession, vis: Visibility, punch_id: str) -> PunchItem | None:
    query = _visible(select(PunchItem), vis).where(PunchItem.id == punch_id)
    item: PunchItem | None = (await db.execute(query)).scalar_one_or_none()
    return item


async def get_many(db: AsyncSession, vis: Visibility, ids: Sequence[str]) -> dict[str, PunchItem]:
    query = _visible(select(PunchItem), vis).where(PunchItem.id.in_(ids))
    return {item.id: item for item in (await db.execute(query)).scalars()}


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
