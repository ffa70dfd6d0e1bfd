"""Downtime and reliability queries: always within one project. The report's three
statements (assets, their intervals in the window, their costs in the window by kind) are the
same whatever the number of assets, intervals or work orders."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.pagination import PageParams
from plumbline.models import Asset, Downtime, Issue, WorkOrderCost
from plumbline.om.reliability.schemas import DowntimeRead
from plumbline.records.fields import Fields

FIELDS = Fields(
    Downtime.__table__,
    {n: (None if n == "status" else to_snake(n)) for n in DowntimeRead.model_fields},
)


def _live(project_id: str) -> list[Any]:
    return [Downtime.project_id == project_id, Downtime.deleted_at.is_(None)]


async def list_rows(
    db: AsyncSession, project_id: str, asset_id: str, page: PageParams
) -> Sequence[Sequence[Any]]:
    query = select(*FIELDS.columns).where(*_live(project_id), Downtime.asset_id == asset_id)
    return (await db.execute(page.apply(query, Downtime.id))).all()


async def get(
    db: AsyncSession, project_id: str, asset_id: str, downtime_id: str
) -> Downtime | None:
    query = select(Downtime).where(
        *_live(project_id), Downtime.asset_id == asset_id, Downtime.id == downtime_id
    )
    return (await db.execute(query)).scalar_one_or_none()


async def overlapping(
    db: AsyncSession,
    asset_id: str,
    start: datetime,
    end: datetime | None,
    except_id: str | None = None,
) -> str | None:
    """An interval of the asset sharing time with [start, end) (end None: still open)."""
    query = select(Downtime.id).where(
        Downtime.asset_id == asset_id,
        Downtime.deleted_at.is_(None),
        or_(Downtime.ended_at.is_(None), Downtime.ended_at > start),
    )
    if end is not None:
        query = query.where(Downtime.started_at < end)
    if except_id is not None:
        query = query.where(Downtime.id != except_id)
    return (await db.execute(query.limit(1))).scalar_one_or_none()


async def open_for_work_order(db: AsyncSession, work_order_id: str) -> Sequence[Downtime]:
    query = select(Downtime).where(
        Downtime.work_order_id == work_order_id,
        Downtime.ended_at.is_(None),
        Downtime.deleted_at.is_(None),
    )
    return (await db.execute(query)).scalars().all()


async def assets(
    db: AsyncSession, project_id: str, asset_id: str | None
) -> Sequence[Sequence[Any]]:
    query = select(Asset.id, Asset.tag, Asset.name).where(
        Asset.project_id == project_id, Asset.deleted_at.is_(None)
    )
    if asset_id is not None:
        query = query.where(Asset.id == asset_id)
    return (await db.execute(query.order_by(Asset.tag, Asset.id))).all()


async def intervals(
    db: AsyncSession, project_id: str, asset_id: str | None, start: datetime, end: datetime
) -> Sequence[Sequence[Any]]:
    """The intervals sharing time with [start, end): asset, planned, started, ended."""
    query = select(
        Downtime.asset_id, Downtime.planned, Downtime.started_at, Downtime.ended_at
    ).where(
        *_live(project_id),
        Downtime.started_at < end,
        or_(Downtime.ended_at.is_(None), Downtime.ended_at > start),
    )
    if asset_id is not None:
        query = query.where(Downtime.asset_id == asset_id)
    return (await db.execute(query)).all()


async def costs(
    db: AsyncSession, project_id: str, asset_id: str | None, start: datetime, end: datetime
) -> Sequence[Sequence[Any]]:
    """Cost lines incurred in [start, end) on work orders of each asset, summed by kind."""
    query = (
        select(Issue.asset_id, WorkOrderCost.kind, func.sum(WorkOrderCost.amount))
        .join(Issue, Issue.id == WorkOrderCost.work_order_id)
        .where(
            WorkOrderCost.project_id == project_id,
            Issue.deleted_at.is_(None),
            Issue.asset_id.is_not(None),
            WorkOrderCost.incurred_at >= start,
            WorkOrderCost.incurred_at < end,
        )
        .group_by(Issue.asset_id, WorkOrderCost.kind)
    )
    if asset_id is not None:
        query = query.where(Issue.asset_id == asset_id)
    return (await db.execute(query)).all()
