"""API key queries, always within one project."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Rows
from plumbline.kit.pagination import PageParams
from plumbline.models import ApiKey

KEY_COLUMNS: tuple[Any, ...] = (
    ApiKey.id,
    ApiKey.project_id,
    ApiKey.name,
    ApiKey.prefix,
    ApiKey.scopes,
    ApiKey.created_at,
    ApiKey.created_by,
    ApiKey.expires_at,
    ApiKey.last_used_at,
    ApiKey.revoked_at,
)


async def list_keys(db: AsyncSession, *, project_id: str, page: PageParams) -> Rows:
    query = select(*KEY_COLUMNS).where(ApiKey.project_id == project_id)
    conn = await db.connection()
    rows: Rows = (await conn.execute(page.apply(query, ApiKey.id))).all()
    return rows


async def get_key(db: AsyncSession, *, project_id: str, key_id: str) -> ApiKey | None:
    query = select(ApiKey).where(ApiKey.id == key_id, ApiKey.project_id == project_id)
    return (await db.execute(query)).scalar_one_or_none()
