"""Every material query: always within one workspace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import AnySelect, Rows
from plumbline.kit import search
from plumbline.kit.pagination import PageParams
from plumbline.material.schemas import MaterialFilters, MaterialRead
from plumbline.models import Material
from plumbline.records.fields import Fields

# The response, in order: each field the column of the same name in snake case.
FIELDS = Fields(Material.__table__, {name: to_snake(name) for name in MaterialRead.model_fields})
SEARCHED = (Material.name, Material.sku, Material.supplier)


def filtered(workspace_id: str, filters: MaterialFilters) -> AnySelect:
    query = select(*FIELDS.columns).where(Material.workspace_id == workspace_id)
    if filters.q:
        query = query.where(search.matches(filters.q, *SEARCHED))
    if filters.category:
        query = query.where(Material.category == filters.category)
    if filters.external_id is not None:
        query = query.where(Material.external_id == filters.external_id)
    return query


async def list_rows(
    db: AsyncSession, workspace_id: str, filters: MaterialFilters, page: PageParams
) -> Rows:
    query = page.apply(filtered(workspace_id, filters), Material.id)
    return (await db.execute(search.inline(query, filters.q))).all()


async def rows_before(
    db: AsyncSession, workspace_id: str, before_id: str | None, size: int
) -> Rows:
    query = filtered(workspace_id, MaterialFilters())
    if before_id is not None:
        query = query.where(Material.id < before_id)
    return (await db.execute(query.order_by(Material.id.desc()).limit(size))).all()


async def get(db: AsyncSession, workspace_id: str, material_id: str) -> Material | None:
    query = select(Material).where(
        Material.id == material_id, Material.workspace_id == workspace_id
    )
    return (await db.execute(query)).scalar_one_or_none()


async def sku_owner(db: AsyncSession, workspace_id: str, sku: str) -> str | None:
    query = select(Material.id).where(Material.workspace_id == workspace_id, Material.sku == sku)
    return (await db.execute(query)).scalar_one_or_none()


async def external_id_owner(db: AsyncSession, workspace_id: str, external_id: str) -> str | None:
    query = select(Material.id).where(
        Material.workspace_id == workspace_id, Material.external_id == external_id
    )
    return (await db.execute(query)).scalar_one_or_none()


async def by_external_ids(
    db: AsyncSession, workspace_id: str, external_ids: Sequence[str]
) -> Sequence[Material]:
    """The workspace's materials with one of ``external_ids``, locked in id order. One query."""
    if not external_ids:
        return []
    query = (
        select(Material)
        .where(Material.workspace_id == workspace_id, Material.external_id.in_(external_ids))
        .order_by(Material.id)
        .with_for_update()
    )
    return (await db.execute(query)).scalars().all()


async def by_skus(db: AsyncSession, workspace_id: str, skus: Sequence[str]) -> dict[str, Material]:
    """``{sku: material}`` of the workspace's materials with one of ``skus``."""
    if not skus:
        return {}
    query = select(Material).where(Material.workspace_id == workspace_id, Material.sku.in_(skus))
    return {m.sku: m for m in (await db.execute(query)).scalars() if m.sku is not None}


async def by_ids(db: AsyncSession, workspace_id: str, ids: Sequence[str]) -> dict[str, Any]:
    """The workspace's materials among ``ids`` (name, unit, price), by id."""
    if not ids:
        return {}
    query = select(Material.id, Material.name, Material.unit, Material.unit_price).where(
        Material.workspace_id == workspace_id, Material.id.in_(ids)
    )
    return {row.id: row for row in (await db.execute(query)).all()}


async def insert_many(db: AsyncSession, rows: list[dict[str, Any]]) -> None:
    if rows:
        await db.execute(insert(Material), rows)


async def update_many(db: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """By primary key, one executemany (each dict holds ``id``)."""
    if rows:
        await db.execute(update(Material), rows)


async def remove(db: AsyncSession, material: Material) -> None:
    await db.execute(
        delete(Material).where(Material.id == material.id),
        execution_options={"synchronize_session": False},
    )
