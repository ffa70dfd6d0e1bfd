"""Queries of file-version locks and viewer state.

Locks serve the viewer and the file module's deletes. Writes are single conditional
statements, so two concurrent requests cannot both win (the database arbitrates, not the
application).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Insert, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import FileLock, ViewerState


def _insert_ignoring_conflict(db: AsyncSession, model: Any, values: dict[str, Any]) -> Insert:
    dialect = db.get_bind().dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    return cast(Insert, module.insert(model).values(**values).on_conflict_do_nothing())


async def _rowcount(db: AsyncSession, statement: Any) -> int:
    result = cast(
        CursorResult[Any],
        await db.execute(statement, execution_options={"synchronize_session": False}),
    )
    return result.rowcount


async def get_lock(db: AsyncSession, version_id: str) -> tuple[str, datetime, datetime] | None:
    """``(locked_by, locked_at, expires_at)`` of the lock row, expired or not."""
    query = select(FileLock.locked_by, FileLock.locked_at, FileLock.expires_at).where(
        FileLock.file_version_id == version_id
    )
    return (await db.execute(query)).tuples().first()


async def lock_held_by_other(
    db: AsyncSession, version_ids: Sequence[str], user_id: str | None, now: datetime
) -> FileLock | None:
    """A live lock on one of ``version_ids`` held by someone other than ``user_id``."""
    if not version_ids:
        return None
    query = select(FileLock).where(
        FileLock.file_version_id.in_(version_ids), FileLock.expires_at > now
    )
    if user_id is not None:
        query = query.where(FileLock.locked_by != user_id)
    return (await db.execute(query.limit(1))).scalar_one_or_none()


async def renew_lock(
    db: AsyncSession, version_id: str, user_id: str, now: datetime, expires_at: datetime
) -> bool:
    """Extend the caller's own unexpired lock."""
    statement = (
        update(FileLock)
        .where(
            FileLock.file_version_id == version_id,
            FileLock.locked_by == user_id,
            FileLock.expires_at > now,
        )
        .values(expires_at=expires_at)
    )
    return await _rowcount(db, statement) == 1


async def take_lock(
    db: AsyncSession,
    version_id: str,
    user_id: str,
    now: datetime,
    expires_at: datetime,
    *,
    force: bool,
) -> bool:
    """Take over the row when it has expired (or unconditionally when forcing)."""
    statement = update(FileLock).where(FileLock.file_version_id == version_id)
    if not force:
        statement = statement.where(FileLock.expires_at <= now)
    statement = statement.values(locked_by=user_id, locked_at=now, expires_at=expires_at)
    return await _rowcount(db, statement) == 1


async def insert_lock(
    db: AsyncSession, version_id: str, user_id: str, now: datetime, expires_at: datetime
) -> bool:
    values = {
        "file_version_id": version_id,
        "locked_by": user_id,
        "locked_at": now,
        "expires_at": expires_at,
    }
    return await _rowcount(db, _insert_ignoring_conflict(db, FileLock, values)) == 1


async def delete_lock(db: AsyncSession, version_id: str, holder: str) -> bool:
    """Delete the lock row if ``holder`` still holds it."""
    statement = delete(FileLock).where(
        FileLock.file_version_id == version_id, FileLock.locked_by == holder
    )
    return await _rowcount(db, statement) == 1


async def get_state(db: AsyncSession, version_id: str) -> tuple[dict[str, Any], int] | None:
    query = select(ViewerState.state, ViewerState.revision).where(
        ViewerState.file_version_id == version_id
    )
    return (await db.execute(query)).tuples().first()


async def insert_state(
    db: AsyncSession, version_id: str, state: dict[str, Any], user_id: str, now: datetime
) -> bool:
    """The first save (base revision 0): only one of concurrent first saves inserts."""
    values = {
        "file_version_id": version_id,
        "state": state,
        "revision": 1,
        "updated_by": user_id,
        "updated_at": now,
    }
    return await _rowcount(db, _insert_ignoring_conflict(db, ViewerState, values)) == 1


async def update_state(
    db: AsyncSession,
    version_id: str,
    base_revision: int,
    state: dict[str, Any],
    user_id: str,
    now: datetime,
) -> bool:
    """Compare-and-set on the revision: succeeds only when nobody saved since ``base_revision``."""
    statement = (
        update(ViewerState)
        .where(
            ViewerState.file_version_id == version_id,
            ViewerState.revision == base_revision,
        )
        .values(
            state=state,
            revision=ViewerState.revision + 1,
            updated_by=user_id,
            updated_at=now,
        )
    )
    return await _rowcount(db, statement) == 1
