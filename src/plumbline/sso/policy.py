"""Password sign-in where a workspace requires its identity provider."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import Role
from plumbline.models import User
from plumbline.sso import repository
from plumbline.sso.errors import SsoRequired


async def allow_password(db: AsyncSession, user: User) -> None:
    """403 ``SSO_REQUIRED`` for a user of a verified domain whose workspace requires SSO,
    unless they are one of that workspace's SUPER_ADMINs: the owners keep their password as the
    way back in when the provider is down or misconfigured."""
    domain = user.email.rsplit("@", 1)[-1].lower()
    config = await repository.required_for(db, domain)
    if config is None:
        return
    membership = await repository.membership(db, config.workspace_id, user.id)
    if membership is not None and membership.role == Role.SUPER_ADMIN.value:
        return
    raise SsoRequired(signInUrl=f"/api/auth/sso?email={user.email}")
