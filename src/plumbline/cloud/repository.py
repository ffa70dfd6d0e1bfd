"""Every query of the cloud connectors; each is scoped to the calling user."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import database
from plumbline.models import CloudAuthorization, CloudConnection, Membership, Workspace

CONNECTION_FIELDS = (
    CloudConnection.provider,
    CloudConnection.account_email,
    CloudConnection.account_name,
    CloudConnection.created_at,
    CloudConnection.expires_at,
    CloudConnection.status,
)


async def list_connections(db: AsyncSession, user_id: str) -> list[Any]:
    query = (
        select(*CONNECTION_FIELDS)
        .where(CloudConnection.user_id == user_id)
        .order_by(CloudConnection.provider)
    )
    return list((await db.execute(query)).all())


async def get_connection(db: AsyncSession, user_id: str, provider: str) -> CloudConnection | None:
    query = select(CloudConnection).where(
        CloudConnection.user_id == user_id, CloudConnection.provider == provider
    )
    return (await db.execute(query)).scalar_one_or_none()


async def delete_connection(db: AsyncSession, connection_id: str) -> None:
    await db.execute(delete(CloudConnection).where(CloudConnection.id == connection_id))


async def user_workspaces(db: AsyncSession, user_id: str) -> list[Workspace]:
    query = (
        select(Workspace)
        .join(Membership, Membership.workspace_id == Workspace.id)
        .where(Membership.user_id == user_id)
    )
    return list((await db.execute(query)).scalars())


async def take_authorization(
    db: AsyncSession, authorization_id: str, user_id: str, provider: str
) -> CloudAuthorization | None:
    """The authorization in progress, deleted as it is read: a state works once."""
    query = (
        delete(CloudAuthorization)
        .where(
            CloudAuthorization.id == authorization_id,
            CloudAuthorization.user_id == user_id,
            CloudAuthorization.provider == provider,
        )
        .returning(CloudAuthorization.code_verifier, CloudAuthorization.return_to)
    )
    row = (await db.execute(query)).first()
    if row is None:
        return None
    return CloudAuthorization(code_verifier=row.code_verifier, return_to=row.return_to)


async def forget_expired_authorizations(db: AsyncSession, user_id: str, now: datetime) -> None:
    await db.execute(
        delete(CloudAuthorization).where(
            CloudAuthorization.user_id == user_id, CloudAuthorization.expires_at < now
        )
    )


# ---- writes that must outlive a failed request (UnitOfWork.after_rollback)


async def write_apart(connection_id: str, values: dict[str, Any]) -> None:
    """Update a connection in a transaction of its own (the request's was rolled back)."""
    async with database.sessionmaker() as session, session.begin():
        await session.execute(
            update(CloudConnection).where(CloudConnection.id == connection_id).values(**values)
        )
