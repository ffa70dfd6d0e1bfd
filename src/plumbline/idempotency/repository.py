"""Queries of the ``idempotency_keys`` table."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import IdempotencyKey

# The first of the two keys of the PostgreSQL advisory locks taken here: the two-key space is
# apart from the one-key space, and this value keeps it apart from other two-key users.
LOCK_CLASS = 0x1DE7


def lock_id(caller: str, key: str) -> int:
    """The second key of the advisory lock of ``(caller, key)``: a signed 32-bit hash (two
    keys sharing it only wait for each other)."""
    digest = hashlib.sha256(f"{caller}\n{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big", signed=True)


async def lock(db: AsyncSession, caller: str, key: str) -> None:
    """PostgreSQL: wait until no other transaction holds ``(caller, key)``, then hold it until
    this one ends (commit, rollback, or the connection dropped by a crash). SQLite needs none:
    every transaction takes the write lock at BEGIN (``db._sqlite_immediate_transactions``)."""
    if db.get_bind().dialect.name == "postgresql":
        await db.execute(select(func.pg_advisory_xact_lock(LOCK_CLASS, lock_id(caller, key))))


async def get(db: AsyncSession, caller: str, key: str) -> IdempotencyKey | None:
    query = select(IdempotencyKey).where(IdempotencyKey.caller == caller, IdempotencyKey.key == key)
    return (await db.execute(query)).scalar_one_or_none()


async def insert(db: AsyncSession, values: dict[str, Any]) -> bool:
    """Writes the row unless ``(caller, key)`` has one; False when it has. On PostgreSQL a row
    another transaction is writing blocks this insert until that transaction ends."""
    module = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    statement = (
        module.insert(IdempotencyKey)
        .values(**values)
        .on_conflict_do_nothing()
        .returning(IdempotencyKey.key)
    )
    return (await db.execute(statement)).first() is not None


async def delete_one(db: AsyncSession, caller: str, key: str) -> None:
    await db.execute(
        delete(IdempotencyKey).where(IdempotencyKey.caller == caller, IdempotencyKey.key == key)
    )


async def delete_expired(db: AsyncSession, now: datetime) -> int:
    result = cast(
        CursorResult[Any],
        await db.execute(delete(IdempotencyKey).where(IdempotencyKey.expires_at <= now)),
    )
    return result.rowcount
