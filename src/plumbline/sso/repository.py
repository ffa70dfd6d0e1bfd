"""Queries of SSO configurations, domains, sign-ins in flight and external identities."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import (
    ExternalIdentity,
    Membership,
    ScimUser,
    SsoConfig,
    SsoDomain,
    SsoLogin,
    User,
    Workspace,
)


async def config(db: AsyncSession, workspace_id: str) -> SsoConfig | None:
    found = await db.execute(select(SsoConfig).where(SsoConfig.workspace_id == workspace_id))
    return found.scalar_one_or_none()


async def domains(db: AsyncSession, workspace_id: str) -> list[SsoDomain]:
    found = await db.execute(
        select(SsoDomain).where(SsoDomain.workspace_id == workspace_id).order_by(SsoDomain.domain)
    )
    return list(found.scalars())


async def domains_named(db: AsyncSession, names: list[str]) -> list[SsoDomain]:
    found = await db.execute(select(SsoDomain).where(SsoDomain.domain.in_(names)))
    return list(found.scalars())


async def delete_domains(db: AsyncSession, workspace_id: str, names: list[str] | None) -> None:
    statement = delete(SsoDomain).where(SsoDomain.workspace_id == workspace_id)
    if names is not None:
        statement = statement.where(SsoDomain.domain.in_(names))
    await db.execute(statement)


async def live_workspace(db: AsyncSession, slug: str) -> Workspace | None:
    found = await db.execute(
        select(Workspace).where(Workspace.slug == slug, Workspace.deleted_at.is_(None))
    )
    return found.scalar_one_or_none()


async def workspace_of_domain(db: AsyncSession, domain: str) -> Workspace | None:
    """The live workspace whose provider signs in ``domain``, once the domain is verified."""
    found = await db.execute(
        select(Workspace)
        .join(SsoDomain, SsoDomain.workspace_id == Workspace.id)
        .where(
            SsoDomain.domain == domain,
            SsoDomain.verified_at.is_not(None),
            Workspace.deleted_at.is_(None),
        )
    )
    return found.scalar_one_or_none()


async def required_for(db: AsyncSession, domain: str) -> SsoConfig | None:
    """The configuration requiring SSO for the verified ``domain``, if any."""
    found = await db.execute(
        select(SsoConfig)
        .join(SsoDomain, SsoDomain.workspace_id == SsoConfig.workspace_id)
        .join(Workspace, Workspace.id == SsoConfig.workspace_id)
        .where(
            SsoDomain.domain == domain,
            SsoDomain.verified_at.is_not(None),
            SsoConfig.required.is_(True),
            Workspace.deleted_at.is_(None),
        )
    )
    return found.scalar_one_or_none()


async def login(db: AsyncSession, state_hash: str) -> SsoLogin | None:
    found = await db.execute(select(SsoLogin).where(SsoLogin.state_hash == state_hash))
    return found.scalar_one_or_none()


async def use_login(db: AsyncSession, login_id: str, now: datetime) -> bool:
    """Mark the sign-in used; False when another request used it first (single use)."""
    result = await db.execute(
        update(SsoLogin)
        .where(SsoLogin.id == login_id, SsoLogin.used_at.is_(None))
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    return int(cast(CursorResult[Any], result).rowcount) == 1


async def delete_stale_logins(db: AsyncSession, before: datetime) -> None:
    await db.execute(delete(SsoLogin).where(SsoLogin.expires_at < before))


async def linked_user(db: AsyncSession, issuer: str, subject: str) -> User | None:
    found = await db.execute(
        select(User)
        .join(ExternalIdentity, ExternalIdentity.user_id == User.id)
        .where(ExternalIdentity.issuer == issuer, ExternalIdentity.subject == subject)
    )
    return found.scalar_one_or_none()


async def identity(db: AsyncSession, issuer: str, subject: str) -> ExternalIdentity | None:
    found = await db.execute(
        select(ExternalIdentity).where(
            ExternalIdentity.issuer == issuer, ExternalIdentity.subject == subject
        )
    )
    return found.scalar_one_or_none()


async def membership(db: AsyncSession, workspace_id: str, user_id: str) -> Membership | None:
    found = await db.execute(
        select(Membership).where(
            Membership.workspace_id == workspace_id, Membership.user_id == user_id
        )
    )
    return found.scalar_one_or_none()


async def deactivated(db: AsyncSession, workspace_id: str, user_id: str) -> bool:
    """Whether the workspace's provisioning deactivated the user (SCIM ``active=false``)."""
    found = await db.execute(
        select(ScimUser.id).where(
            ScimUser.workspace_id == workspace_id,
            ScimUser.user_id == user_id,
            ScimUser.active.is_(False),
        )
    )
    return found.first() is not None
