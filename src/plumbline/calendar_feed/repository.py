"""Calendar feed queries: a user's own feeds, a project's, and a feed by its token's hash."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.repository import with_member_access
from plumbline.db import Rows, core_rows
from plumbline.kit.pagination import PageParams
from plumbline.models import CalendarFeed, User
from plumbline.records.fields import Fields
from plumbline.snapshots import Snapshots

F = CalendarFeed.__table__.c
# A feed as answered, in order; never the secret.
FIELDS = Fields(
    CalendarFeed.__table__,
    {
        "id": "id",
        "kind": None,
        "projectId": "project_id",
        "name": "name",
        "createdBy": "user_id",
        "createdAt": "created_at",
        "lastUsedAt": "last_used_at",
    },
)

# The live feed of a token (``token_hash``) with its owner and, for a project feed, the owner's
# access to the project (``authz.repository.with_member_access``): one statement per fetch.
FEED_BY_HASH = Snapshots(
    with_member_access(
        select(CalendarFeed, User)
        .join(User, User.id == CalendarFeed.user_id)
        .where(
            CalendarFeed.token_hash == bindparam("token_hash"), CalendarFeed.revoked_at.is_(None)
        ),
        CalendarFeed,
        CalendarFeed.user_id,
        CalendarFeed.project_id,
    )
)


async def list_feeds(
    db: AsyncSession,
    *,
    page: PageParams,
    user_id: str | None = None,
    project_id: str | None = None,
) -> Rows:
    """Live feeds, newest first: the user's own (``project_id`` None: their personal feeds),
    or the project's (every owner's unless ``user_id`` names one)."""
    query = select(*FIELDS.columns).where(F.revoked_at.is_(None))
    if project_id is None:
        query = query.where(F.user_id == user_id, F.project_id.is_(None))
    else:
        query = query.where(F.project_id == project_id)
        if user_id is not None:
            query = query.where(F.user_id == user_id)
    return await core_rows(db, page.apply(query, CalendarFeed.id))


async def get_feed(
    db: AsyncSession, feed_id: str, *, project_id: str | None, user_id: str | None
) -> CalendarFeed | None:
    """A feed of the project (``project_id``), or a personal feed when it is None; of the
    user ``user_id`` when given."""
    query = select(CalendarFeed).where(CalendarFeed.id == feed_id)
    if project_id is None:
        query = query.where(CalendarFeed.project_id.is_(None))
    else:
        query = query.where(CalendarFeed.project_id == project_id)
    if user_id is not None:
        query = query.where(CalendarFeed.user_id == user_id)
    return (await db.execute(query)).scalar_one_or_none()


async def feed_by_hash(db: AsyncSession, token_hash: str) -> tuple[Any, ...] | None:
    """FEED_BY_HASH: (feed, owner, project, workspace, membership, named id, project role), the
    entities as snapshots."""
    return await FEED_BY_HASH.first(db, {"token_hash": token_hash})


async def mark_used(db: AsyncSession, feed_id: str, now: datetime) -> None:
    """A fetch of the feed: its ``lastUsedAt``."""
    await db.execute(
        update(CalendarFeed).where(CalendarFeed.id == feed_id).values(last_used_at=now)
    )
