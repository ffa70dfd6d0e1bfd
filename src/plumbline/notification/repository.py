"""Queries of the caller's notifications; every statement is scoped to one user."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Row, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import AnySelect, Rows
from plumbline.kit.pagination import PageParams
from plumbline.models import Notification, User

# A notification as answered, in order.
COLUMNS = (
    Notification.id,
    Notification.kind,
    Notification.title,
    Notification.body,
    Notification.href,
    Notification.workspace_id,
    Notification.project_id,
    Notification.read_at,
    Notification.created_at,
)


async def list_for_user(
    db: AsyncSession, user_id: str, *, unread_only: bool, page: PageParams
) -> Rows:
    query: AnySelect = select(*COLUMNS).where(Notification.user_id == user_id)
    if unread_only:
        query = query.where(Notification.read_at.is_(None))
    return (await db.execute(page.apply(query, Notification.id))).all()


async def one_for_user(db: AsyncSession, user_id: str, notification_id: str) -> Any:
    """One of the user's notifications (``COLUMNS``), or None."""
    query = select(*COLUMNS).where(
        Notification.id == notification_id, Notification.user_id == user_id
    )
    return (await db.execute(query)).first()


async def mark_read(db: AsyncSession, user_id: str, ids: list[str] | None, now: datetime) -> int:
    """Mark unread notifications read (these ids, or all); returns how many changed."""
    query = update(Notification).where(
        Notification.user_id == user_id, Notification.read_at.is_(None)
    )
    if ids is not None:
        query = query.where(Notification.id.in_(ids))
    result = await db.execute(
        query.values(read_at=now).execution_options(synchronize_session=False)
    )
    return int(cast(CursorResult[Any], result).rowcount)


async def contacts(db: AsyncSession, user_ids: Sequence[str]) -> Sequence[Row[str, str, str]]:
    """``(id, name, email)`` of these users, in one query."""
    if not user_ids:
        return []
    query = select(User.id, User.name, User.email).where(User.id.in_(user_ids)).order_by(User.id)
    return (await db.execute(query)).all()


async def unread_count(db: AsyncSession, user_id: str) -> int:
    """How many of the user's notifications are unread (the bell's number)."""
    query = select(func.count()).where(
        Notification.user_id == user_id, Notification.read_at.is_(None)
    )
    return int((await db.execute(query)).scalar_one())
