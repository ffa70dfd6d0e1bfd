"""API key queries, always within one project."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Rows, core_rows
from plumbline.kit.pagination import PageParams
from plumbline.models import ApiKey
from plumbline.records.fields import Fields

# An API key as answered, in order; never the secret.
FIELDS = Fields(
    ApiKey.__table__,
    {
        "id": "id",
        "projectId": "project_id",
        "name": "name",
        "prefix": "prefix",
        "scopes": "scopes",
        "createdAt": "created_at",
        "createdBy": "created_by",
        "expiresAt": "expires_at",
        "lastUsedAt": "last_used_at",
        "revokedAt": "revoked_at",
    },
)


async def list_keys(db: AsyncSession, *, project_id: str, page: PageParams) -> Rows:
    query = select(*FIELDS.columns).where(ApiKey.project_id == project_id)
    return await core_rows(db, page.apply(query, ApiKey.id))


async def get_key(db: AsyncSession, *, project_id: str, key_id: str) -> ApiKey | None:
    query = select(ApiKey).where(ApiKey.id == key_id, ApiKey.project_id == project_id)
    return (await db.execute(query)).scalar_one_or_none()
