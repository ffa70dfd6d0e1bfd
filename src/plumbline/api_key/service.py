"""Project API keys: ``psk_`` + random characters, stored as a SHA-256 hash and a prefix."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.api_key import repository
from plumbline.api_key.schemas import ApiKeyCreate
from plumbline.audit.service import audit_change, audit_stamp, created
from plumbline.authz.project import ProjectContext
from plumbline.errors import InvalidField, found
from plumbline.kit import clock, crypto
from plumbline.kit.pagination import PageParams
from plumbline.models import ApiKey

KEY_PREFIX = "psk_"
PREFIX_LENGTH = 12


def new_secret() -> str:
    """A key's secret: the prefix and 30 random bytes (40 URL-safe characters)."""
    return KEY_PREFIX + secrets.token_urlsafe(30)


class ApiKeyService:
    async def list_keys(
        self, db: AsyncSession, ctx: ProjectContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's keys, revoked ones included, newest first."""
        rows = await repository.list_keys(db, project_id=ctx.project.id, page=page)
        rows, headers = page.finish(rows)
        return [repository.FIELDS.row(row) for row in rows], headers

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, data: ApiKeyCreate
    ) -> dict[str, Any]:
        """The full key is in this answer only; the database keeps its hash."""
        now = clock.now()
        expires_at = data.expires_at
        if expires_at is not None and expires_at <= now:
            raise InvalidField("expiresAt", "must be in the future")
        raw = new_secret()
        key = ApiKey(
            project_id=ctx.project.id,
            workspace_id=ctx.project.workspace_id,
            name=data.name,
            prefix=raw[:PREFIX_LENGTH],
            key_hash=crypto.sha256_hex(raw),
            scopes=data.scopes,
            created_by=ctx.user_id,
            created_at=now,
            expires_at=expires_at,
        )
        db.add(key)
        await db.flush()
        changes = created(repository.FIELDS.audited(key, ("name", "prefix", "scopes", "expiresAt")))
        await audit_change(db, ctx, ("api_key", key.id), "api_key.created", changes)
        return repository.FIELDS.read(repository.FIELDS.of(key), apiKey=raw)

    async def revoke(self, db: AsyncSession, ctx: ProjectContext, key_id: str) -> None:
        """Idempotent: revoking a revoked key keeps its first revocation time."""
        key = found(
            await repository.get_key(db, project_id=ctx.project.id, key_id=key_id),
            "API key not found",
        )
        if key.revoked_at is not None:
            return
        key.revoked_at = clock.now()
        await audit_stamp(
            db, ctx, ("api_key", key.id), "api_key.revoked", "revokedAt", key.revoked_at
        )


api_key = ApiKeyService()
