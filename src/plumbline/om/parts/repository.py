"""Every parts and stock query: parts within one workspace, stock within one project."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any, cast

from pydantic.alias_generators import to_snake
from sqlalchemy import CursorResult, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import Part, StockLevel, StockLocation, StockMove
from plumbline.om.parts.schemas import (
    LevelFilters,
    LocationRead,
    MoveFilters,
    MoveRead,
    PartRead,
)
from plumbline.records.fields import Fields

PART_FIELDS = Fields(Part.__table__, {n: to_snake(n) for n in PartRead.model_fields})
LOCATION_FIELDS = Fields(
    StockLocation.__table__, {n: to_snake(n) for n in LocationRead.model_fields}
)
MOVE_FIELDS = Fields(StockMove.__table__, {n: to_snake(n) for n in MoveRead.model_fields})
L = StockLevel.__table__.c
P = Part.__table__.c
LEVEL_COLUMNS = (
    L.id,
    L.part_id,
    L.location_id,
    L.on_hand,
    P.name,
    P.sku,
    P.unit,
    P.min_quantity,
    P.reorder_quantity,
    L.updated_at,
)


# --- parts (workspace) ---


async def list_parts(
    db: AsyncSession, workspace_id: str, page: PageParams
) -> Sequence[Sequence[Any]]:
    query = select(*PART_FIELDS.columns).where(
        Part.workspace_id == workspace_id, Part.deleted_at.is_(None)
    )
    return (await db.execute(page.apply(query, Part.id))).all()


async def get_part(db: AsyncSession, workspace_id: str, part_id: str) -> Part | None:
    query = select(Part).where(
        Part.id == part_id, Part.workspace_id == workspace_id, Part.deleted_at.is_(None)
    )
    return (await db.execute(query)).scalar_one_or_none()


async def sku_taken(db: AsyncSession, workspace_id: str, sku: str, own: str | None) -> bool:
    query = select(Part.id).where(
        Part.workspace_id == workspace_id, Part.sku == sku, Part.deleted_at.is_(None)
    )
    if own is not None:
        query = query.where(Part.id != own)
    return (await db.execute(query.limit(1))).first() is not None


# --- locations (project) ---


async def list_locations(
    db: AsyncSession, project_id: str, page: PageParams
) -> Sequence[Sequence[Any]]:
    query = select(*LOCATION_FIELDS.columns).where(
        StockLocation.project_id == project_id, StockLocation.deleted_at.is_(None)
    )
    return (await db.execute(page.apply(query, StockLocation.id))).all()


async def get_location(db: AsyncSession, project_id: str, location_id: str) -> StockLocation | None:
    query = select(StockLocation).where(
        StockLocation.id == location_id,
        StockLocation.project_id == project_id,
        StockLocation.deleted_at.is_(None),
    )
    return (await db.execute(query)).scalar_one_or_none()


async def location_name_taken(db: AsyncSession, project_id: str, name: str) -> bool:
    query = select(StockLocation.id).where(
        StockLocation.project_id == project_id,
        func.lower(StockLocation.name) == name.lower(),
        StockLocation.deleted_at.is_(None),
    )
    return (await db.execute(query.limit(1))).first() is not None


# --- levels and the ledger ---


async def list_levels(
    db: AsyncSession, project_id: str, filters: LevelFilters, page: PageParams
) -> Sequence[Sequence[Any]]:
    query = (
        select(*LEVEL_COLUMNS)
        .join(Part, Part.id == StockLevel.part_id)
        .where(StockLevel.project_id == project_id)
    )
    if filters.location_id is not None:
        query = query.where(StockLevel.location_id == filters.location_id)
    if filters.below_minimum is not None:
        below = StockLevel.on_hand < Part.min_quantity
        query = query.where(below if filters.below_minimum else ~below)
    return (await db.execute(page.apply(query, StockLevel.id))).all()


async def ensure_level(
    db: AsyncSession,
    project_id: str,
    workspace_id: str,
    part_id: str,
    location_id: str,
    now: datetime,
) -> None:
    """The level row of the pair, made at zero when missing (concurrent makers: one wins)."""
    module = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    statement = (
        module.insert(StockLevel)
        .values(
            id=new_id(),
            project_id=project_id,
            workspace_id=workspace_id,
            part_id=part_id,
            location_id=location_id,
            on_hand=Decimal(0),
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=["part_id", "location_id"])
    )
    await db.execute(statement)


async def change_level(
    db: AsyncSession, part_id: str, location_id: str, delta: Decimal, now: datetime
) -> tuple[Decimal, datetime | None] | None:
    """Add ``delta`` to the pair's on-hand in one conditional statement: never below zero, so
    of concurrent consumptions of the last units only those the stock covers succeed (on
    PostgreSQL the second waits for the first's row lock, then re-checks). Returns the new
    on-hand and the level's ``low_since``, or None when the stock does not cover ``-delta``."""
    statement = (
        update(StockLevel)
        .where(StockLevel.part_id == part_id, StockLevel.location_id == location_id)
        .values(on_hand=StockLevel.on_hand + delta, updated_at=now)
        .returning(StockLevel.on_hand, StockLevel.low_since)
    )
    if delta < 0:
        statement = statement.where(StockLevel.on_hand >= -delta)
    row = (await db.execute(statement, execution_options={"synchronize_session": False})).first()
    return None if row is None else (Decimal(row[0]), row[1])


async def available(db: AsyncSession, part_id: str, location_id: str) -> Decimal:
    query = select(StockLevel.on_hand).where(
        StockLevel.part_id == part_id, StockLevel.location_id == location_id
    )
    value = (await db.execute(query)).scalar_one_or_none()
    return Decimal(value or 0)


async def mark_low(
    db: AsyncSession, part_id: str, location_id: str, since: datetime | None
) -> bool:
    """Set (or clear, with None) the level's ``low_since`` if it is not already so; True when
    this call changed it (so exactly one dip below the minimum sends a notice)."""
    condition = StockLevel.low_since.is_(None) if since else StockLevel.low_since.is_not(None)
    result = await db.execute(
        update(StockLevel)
        .where(StockLevel.part_id == part_id, StockLevel.location_id == location_id, condition)
        .values(low_since=since),
        execution_options={"synchronize_session": False},
    )
    return cast(CursorResult[Any], result).rowcount == 1


async def list_moves(
    db: AsyncSession, project_id: str, filters: MoveFilters, page: PageParams
) -> Sequence[Sequence[Any]]:
    query = select(*MOVE_FIELDS.columns).where(*_move_conditions(project_id, filters))
    return (await db.execute(page.apply(query, StockMove.id, StockMove.created_at))).all()


def _move_conditions(project_id: str, filters: MoveFilters) -> list[Any]:
    conditions: list[Any] = [StockMove.project_id == project_id]
    if filters.part_id is not None:
        conditions.append(StockMove.part_id == filters.part_id)
    if filters.location_id is not None:
        conditions.append(StockMove.location_id == filters.location_id)
    if filters.work_order_id is not None:
        conditions.append(StockMove.work_order_id == filters.work_order_id)
    return conditions


async def export_moves(
    db: AsyncSession, project_id: str, filters: MoveFilters, before_id: str | None, size: int
) -> Sequence[Sequence[Any]]:
    """A batch of the ledger, newest first, with each move's part and location names."""
    query = (
        select(*MOVE_FIELDS.columns, Part.name, Part.sku, StockLocation.name)
        .join(Part, Part.id == StockMove.part_id)
        .join(StockLocation, StockLocation.id == StockMove.location_id)
        .where(*_move_conditions(project_id, filters))
        .order_by(StockMove.id.desc())
        .limit(size)
    )
    if before_id is not None:
        query = query.where(StockMove.id < before_id)
    return (await db.execute(query)).all()


async def ledger_sum(db: AsyncSession, part_id: str, location_id: str) -> Decimal:
    query = select(func.coalesce(func.sum(StockMove.quantity), 0)).where(
        StockMove.part_id == part_id, StockMove.location_id == location_id
    )
    return Decimal((await db.execute(query)).scalar_one())
