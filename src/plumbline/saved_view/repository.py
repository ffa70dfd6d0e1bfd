"""Queries of saved views; every statement is scoped to one project and what its person sees."""

from __future__ import annotations

from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Rows
from plumbline.models import SavedView


async def visible(db: AsyncSession, project_id: str, page: str, user_id: str) -> Rows:
    """The person's own views of ``page`` and those shared with the project, by name."""
    query = (
        select(SavedView.id, SavedView.name, SavedView.query, SavedView.shared, SavedView.user_id)
        .where(
            SavedView.project_id == project_id,
            SavedView.page == page,
            or_(SavedView.user_id == user_id, SavedView.shared.is_(True)),
        )
        .order_by(SavedView.name, SavedView.id)
    )
    return (await db.execute(query)).all()


async def remove(db: AsyncSession, project_id: str, view_id: str, user_id: str) -> bool:
    """Delete one of the person's own views; False when there is none."""
    result = await db.execute(
        delete(SavedView).where(
            SavedView.id == view_id,
            SavedView.project_id == project_id,
            SavedView.user_id == user_id,
        )
    )
    return bool(getattr(result, "rowcount", 0))
