"""Audit log queries, always within one project."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import Insert, Table, bindparam, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.schemas import AuditFilters
from plumbline.db import AnySelect, Rows, core_rows
from plumbline.kit.pagination import PageParams
from plumbline.models import AuditLog

AUDIT_COLUMNS: tuple[Any, ...] = (
    AuditLog.id,
    AuditLog.workspace_id,
    AuditLog.project_id,
    AuditLog.actor,
    AuditLog.actor_user_id,
    AuditLog.actor_key_id,
    AuditLog.action,
    AuditLog.entity_type,
    AuditLog.entity_id,
    AuditLog.changes,
    AuditLog.request_id,
    AuditLog.ip,
    AuditLog.created_at,
)


def _query(project_id: str, filters: AuditFilters) -> AnySelect:
    query = select(*AUDIT_COLUMNS).where(AuditLog.project_id == project_id)
    if filters.action is not None:
        query = query.where(AuditLog.action == filters.action)
    if filters.entity_type is not None:
        query = query.where(AuditLog.entity_type == filters.entity_type)
    if filters.entity_id is not None:
        query = query.where(AuditLog.entity_id == filters.entity_id)
    if filters.actor_id is not None:
        query = query.where(
            or_(
                AuditLog.actor_user_id == filters.actor_id,
                AuditLog.actor_key_id == filters.actor_id,
            )
        )
    if filters.since is not None:
        query = query.where(AuditLog.created_at >= filters.since)
    if filters.until is not None:
        query = query.where(AuditLog.created_at <= filters.until)
    return query


async def list_entries(
    db: AsyncSession, *, project_id: str, filters: AuditFilters, page: PageParams
) -> Rows:
    return await core_rows(db, page.apply(_query(project_id, filters), AuditLog.id))


async def recent(db: AsyncSession, *, project_id: str, limit: int) -> Rows:
    query = _query(project_id, AuditFilters()).order_by(AuditLog.id.desc()).limit(limit)
    return await core_rows(db, query)


async def export_batch(
    db: AsyncSession,
    *,
    project_id: str,
    filters: AuditFilters,
    after_id: str | None,
    limit: int,
) -> Rows:
    """Oldest first, keyset on the (time-sortable) id."""
    query = _query(project_id, filters)
    if after_id is not None:
        query = query.where(AuditLog.id > after_id)
    return await core_rows(db, query.order_by(AuditLog.id).limit(limit))


# Values as parameters of a prebuilt Core insert on the session's connection: an ORM entity
# added and flushed costs several times more, on every write of the application.
AUDIT_TABLE = cast("Table", AuditLog.__table__)
INSERT_ENTRY = insert(AUDIT_TABLE)
# The same insert as a data-modifying CTE (PostgreSQL), its parameters prefixed "audit_".
_ENTRY_CTE = (
    insert(AUDIT_TABLE)
    .values({c.key: bindparam(f"audit_{c.key}", type_=c.type) for c in AUDIT_TABLE.c})
    .cte("audit_entry")
)


async def insert_entry(db: AsyncSession, values: dict[str, Any]) -> None:
    await (await db.connection()).execute(INSERT_ENTRY, values)


def with_entry(statement: Insert) -> Insert:
    """``statement`` also writing an audit entry, in the same round trip (PostgreSQL); run it
    with ``entry_params``."""
    return statement.add_cte(_ENTRY_CTE)


def entry_params(entry: dict[str, Any]) -> dict[str, Any]:
    return {f"audit_{key}": value for key, value in entry.items()}
