"""Queries of users, sessions, one-time tokens and the current user's workspaces."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Rows
from plumbline.models import AuthSession, Membership, User, UserToken, Workspace


def _rowcount(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


async def user_by_email(db: AsyncSession, email: str) -> User | None:
    return (await db.execute(select(User).where(User.email == email))).scalar_one_or_none()


async def add_user(db: AsyncSession, user: User) -> User:
    """A concurrent sign-up with the same e-mail answers 409 (``constraints.EXPECTED``)."""
    db.add(user)
    await db.flush()
    return user


async def add_token(db: AsyncSession, token: UserToken) -> None:
    db.add(token)
    await db.flush()


async def token_with_user(
    db: AsyncSession, purpose: str, token_hash: str
) -> tuple[UserToken, User] | None:
    row = (
        await db.execute(
            select(UserToken, User)
            .join(User, User.id == UserToken.user_id)
            .where(UserToken.token_hash == token_hash, UserToken.purpose == purpose)
        )
    ).first()
    return None if row is None else (row[0], row[1])


async def consume_token(db: AsyncSession, token_id: str, now: datetime) -> bool:
    """Mark the token used; False when another request used it first (single use)."""
    result = await db.execute(
        update(UserToken)
        .where(UserToken.id == token_id, UserToken.used_at.is_(None))
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result) == 1


async def retire_tokens(db: AsyncSession, user_id: str, purpose: str, now: datetime) -> None:
    await db.execute(
        update(UserToken)
        .where(
            UserToken.user_id == user_id,
            UserToken.purpose == purpose,
            UserToken.used_at.is_(None),
        )
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )


async def live_sessions(db: AsyncSession, user_id: str, now: datetime) -> Rows:
    """The user's unexpired sessions as plain columns, newest first."""
    query = (
        select(
            AuthSession.id,
            AuthSession.user_id,
            AuthSession.expires_at,
            AuthSession.ip_address,
            AuthSession.user_agent,
            AuthSession.created_at,
            AuthSession.updated_at,
        )
        .where(AuthSession.user_id == user_id, AuthSession.expires_at > now)
        .order_by(AuthSession.id.desc())
        .limit(1000)
    )
    return (await db.execute(query)).all()


async def delete_session(db: AsyncSession, user_id: str, session_id: str) -> int:
    result = await db.execute(
        delete(AuthSession)
        .where(AuthSession.id == session_id, AuthSession.user_id == user_id)
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result)


async def delete_sessions(db: AsyncSession, user_id: str, *, keep: str | None = None) -> int:
    """Delete the user's sessions, except ``keep`` (the caller's, when it stays)."""
    query = delete(AuthSession).where(AuthSession.user_id == user_id)
    if keep is not None:
        query = query.where(AuthSession.id != keep)
    result = await db.execute(query.execution_options(synchronize_session=False))
    return _rowcount(result)


async def member_workspaces(db: AsyncSession, user_id: str) -> Rows:
    """One query for every live workspace the user belongs to, by name."""
    query = (
        select(Workspace.id, Workspace.name, Workspace.slug, Membership.role)
        .join(Membership, Membership.workspace_id == Workspace.id)
        .where(Membership.user_id == user_id, Workspace.deleted_at.is_(None))
        .order_by(Workspace.name, Workspace.id)
    )
    return (await db.execute(query)).all()
