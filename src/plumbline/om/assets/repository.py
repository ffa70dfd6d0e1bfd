"""Every asset query: always within one project, never deleted assets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy import ColumnElement, Row, and_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit import search
from plumbline.kit.pagination import PageParams
from plumbline.models import Asset, Issue, MaintenanceSchedule, MeterReading
from plumbline.om.assets.schemas import AssetFilters, AssetRead, ReadingRead
from plumbline.records.fields import Fields

A = Asset.__table__.c
R = MeterReading.__table__.c
# The responses, in order: each field the column of the same name in snake case. ``meters`` is
# read as a value: the service formats each meter.
FIELDS = Fields(Asset.__table__, {n: to_snake(n) for n in AssetRead.model_fields}, json_text=False)
READING_FIELDS = Fields(MeterReading.__table__, {n: to_snake(n) for n in ReadingRead.model_fields})
OPEN_STATUSES = ("OPEN", "IN_PROGRESS")


def live(project_id: str) -> list[ColumnElement[bool]]:
    return [A.project_id == project_id, A.deleted_at.is_(None)]


def filtered(project_id: str, filters: AssetFilters) -> list[ColumnElement[bool]]:
    conditions = live(project_id)
    if filters.category:
        conditions.append(A.category == filters.category)
    if filters.status:
        conditions.append(A.status == filters.status)
    if filters.location:
        conditions.append(A.location.icontains(filters.location, autoescape=True))
    if filters.external_id is not None:
        conditions.append(A.external_id == filters.external_id)
    if filters.q:
        searched = (A.tag, A.name, A.serial_number, A.model, A.manufacturer)
        conditions.append(search.matches(filters.q, *searched))
    return conditions


async def list_rows(
    db: AsyncSession, project_id: str, filters: AssetFilters, page: PageParams
) -> Sequence[Row[Any]]:
    query = select(*FIELDS.columns).where(*filtered(project_id, filters))
    return (await db.execute(search.inline(page.apply(query, Asset.id), filters.q))).all()


async def get(
    db: AsyncSession, project_id: str, asset_id: str, *, lock: bool = False
) -> Asset | None:
    query = select(Asset).where(Asset.id == asset_id, *live(project_id))
    if lock:
        query = query.with_for_update()
    return (await db.execute(query)).scalar_one_or_none()


async def tag_taken(
    db: AsyncSession, project_id: str, tag: str, except_id: str | None = None
) -> bool:
    query = select(A.id).where(*live(project_id), A.tag == tag)
    if except_id is not None:
        query = query.where(A.id != except_id)
    return (await db.execute(query.limit(1))).first() is not None


async def external_id_taken(
    db: AsyncSession, project_id: str, external_id: str, except_id: str | None = None
) -> bool:
    query = select(A.id).where(*live(project_id), A.external_id == external_id)
    if except_id is not None:
        query = query.where(A.id != except_id)
    return (await db.execute(query.limit(1))).first() is not None


async def by_external_ids(
    db: AsyncSession, project_id: str, external_ids: Sequence[str]
) -> Sequence[Asset]:
    """The project's live assets with one of ``external_ids``, locked in id order (as an
    update locks its asset). One query."""
    if not external_ids:
        return []
    query = (
        select(Asset)
        .where(*live(project_id), A.external_id.in_(external_ids))
        .order_by(A.id)
        .with_for_update()
    )
    return (await db.execute(query)).scalars().all()


async def parents(db: AsyncSession, project_id: str) -> dict[str, str | None]:
    """Each live asset of the project and its parent: one query, walked by the service."""
    rows = await db.execute(select(A.id, A.parent_asset_id).where(*live(project_id)))
    return {row[0]: row[1] for row in rows}


async def in_use(db: AsyncSession, project_id: str, asset_id: str) -> bool:
    """Open work orders or active schedules on the asset."""
    open_orders = select(Issue.id).where(
        Issue.project_id == project_id,
        Issue.asset_id == asset_id,
        Issue.issue_kind == "WORK_ORDER",
        Issue.status.in_(OPEN_STATUSES),
        Issue.deleted_at.is_(None),
    )
    active = select(MaintenanceSchedule.id).where(
        MaintenanceSchedule.asset_id == asset_id, MaintenanceSchedule.is_active.is_(True)
    )
    query = select(open_orders.exists() | active.exists())
    return bool((await db.execute(query)).scalar())


async def detach(db: AsyncSession, project_id: str, asset_id: str) -> list[str]:
    """Pause the asset's active schedules and unhook its children (a forced delete); returns
    the paused schedules."""
    paused = await db.execute(
        update(MaintenanceSchedule)
        .where(MaintenanceSchedule.asset_id == asset_id, MaintenanceSchedule.is_active.is_(True))
        .values(is_active=False)
        .returning(MaintenanceSchedule.id)
    )
    await db.execute(
        update(Asset)
        .where(and_(*live(project_id), Asset.parent_asset_id == asset_id))
        .values(parent_asset_id=None)
    )
    return [row[0] for row in paused]


async def list_readings(
    db: AsyncSession, asset_id: str, meter_type: str | None, page: PageParams
) -> Sequence[Row[Any]]:
    query = select(*READING_FIELDS.columns).where(R.asset_id == asset_id)
    if meter_type is not None:
        query = query.where(R.meter_type == meter_type)
    return (await db.execute(page.apply(query, MeterReading.id))).all()
