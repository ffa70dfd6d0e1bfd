"""Every work-order cost query: always within one project."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy import delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.issue import repository as issues
from plumbline.issue.schemas import COSTED
from plumbline.kit.pagination import PageParams
from plumbline.models import Issue, LabourRate, Membership, Project, WorkOrderCost
from plumbline.om.costs.schemas import CostFilters, CostRead
from plumbline.records.fields import Fields
from plumbline.records.visibility import Visibility

FIELDS = Fields(WorkOrderCost.__table__, {n: to_snake(n) for n in CostRead.model_fields})
# The first key of the PostgreSQL advisory locks of a person's labour (the two-key space, apart
# from the idempotency keys' 0x1DE7).
PERSON_LOCK = 0x1AB0


async def work_order(
    db: AsyncSession, vis: Visibility, issue_id: str, *, lock: bool = False
) -> Issue | None:
    """A live work order (or occupant request) the caller sees as an issue (a contractor:
    the ones assigned to them or that they created)."""
    query = select(Issue).where(
        Issue.id == issue_id, Issue.issue_kind.in_(COSTED), *issues.visible(vis)
    )
    if lock:
        query = query.with_for_update()
    return (await db.execute(query)).scalar_one_or_none()


async def amounts(db: AsyncSession, work_order_id: str) -> Sequence[tuple[str, Decimal]]:
    """The kind and amount of each of the work order's cost lines."""
    query = select(WorkOrderCost.kind, WorkOrderCost.amount).where(
        WorkOrderCost.work_order_id == work_order_id
    )
    return (await db.execute(query)).tuples().all()


async def lines(db: AsyncSession, work_order_id: str) -> Sequence[Sequence[Any]]:
    query = (
        select(*FIELDS.columns)
        .where(WorkOrderCost.work_order_id == work_order_id)
        .order_by(WorkOrderCost.incurred_at, WorkOrderCost.id)
    )
    return (await db.execute(query)).all()


def _conditions(project_id: str, filters: CostFilters) -> list[Any]:
    conditions: list[Any] = [WorkOrderCost.project_id == project_id]
    if filters.work_order_id is not None:
        conditions.append(WorkOrderCost.work_order_id == filters.work_order_id)
    if filters.kind is not None:
        conditions.append(WorkOrderCost.kind == filters.kind)
    if filters.asset_id is not None:
        on_asset = select(Issue.id).where(
            Issue.project_id == project_id, Issue.asset_id == filters.asset_id
        )
        conditions.append(WorkOrderCost.work_order_id.in_(on_asset))
    return conditions


async def list_rows(
    db: AsyncSession, project_id: str, filters: CostFilters, page: PageParams
) -> Sequence[Sequence[Any]]:
    query = select(*FIELDS.columns).where(*_conditions(project_id, filters))
    return (await db.execute(page.apply(query, WorkOrderCost.id))).all()


async def export_rows(
    db: AsyncSession, project_id: str, filters: CostFilters, before_id: str | None, size: int
) -> Sequence[Sequence[Any]]:
    """A batch of cost lines, newest first, with their work order's number and asset."""
    query = (
        select(*FIELDS.columns, Issue.number, Issue.asset_id)
        .join(Issue, Issue.id == WorkOrderCost.work_order_id)
        .where(*_conditions(project_id, filters))
        .order_by(WorkOrderCost.id.desc())
        .limit(size)
    )
    if before_id is not None:
        query = query.where(WorkOrderCost.id < before_id)
    return (await db.execute(query)).all()


async def get(db: AsyncSession, work_order_id: str, cost_id: str) -> WorkOrderCost | None:
    query = select(WorkOrderCost).where(
        WorkOrderCost.id == cost_id, WorkOrderCost.work_order_id == work_order_id
    )
    return (await db.execute(query)).scalar_one_or_none()


async def running(db: AsyncSession, user_id: str) -> WorkOrderCost | None:
    query = select(WorkOrderCost).where(
        WorkOrderCost.user_id == user_id, WorkOrderCost.running.is_(True)
    )
    return (await db.execute(query)).scalar_one_or_none()


def person_key(workspace_id: str, user_id: str) -> int:
    """The second key of the lock of a person's labour in a workspace: a signed 32-bit hash
    (two people sharing it only wait for each other)."""
    digest = hashlib.sha256(f"{workspace_id}\n{user_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big", signed=True)


async def lock_person(db: AsyncSession, workspace_id: str, user_id: str) -> None:
    """PostgreSQL: wait until no other transaction writes the person's labour in the
    workspace, then hold that until this one ends. SQLite needs none: every transaction takes
    the write lock at BEGIN."""
    if db.get_bind().dialect.name == "postgresql":
        key = person_key(workspace_id, user_id)
        await db.execute(select(func.pg_advisory_xact_lock(PERSON_LOCK, key)))


async def overlapping(
    db: AsyncSession,
    workspace_id: str,
    user_id: str,
    start: datetime,
    end: datetime | None,
    except_id: str | None = None,
) -> WorkOrderCost | None:
    """The person's earliest labour entry of the workspace sharing time with [start, end)
    (end None: from start on), a running timer counting from its start on; only entries of
    live work orders of live projects, and only timed ones (minutes alone have no place)."""
    query = (
        select(WorkOrderCost)
        .join(Issue, Issue.id == WorkOrderCost.work_order_id)
        .join(Project, Project.id == WorkOrderCost.project_id)
        .where(
            WorkOrderCost.workspace_id == workspace_id,
            WorkOrderCost.user_id == user_id,
            WorkOrderCost.kind == "LABOUR",
            WorkOrderCost.started_at.is_not(None),
            or_(WorkOrderCost.ended_at.is_(None), WorkOrderCost.ended_at > start),
            Issue.deleted_at.is_(None),
            Project.deleted_at.is_(None),
        )
    )
    if end is not None:
        query = query.where(WorkOrderCost.started_at < end)
    if except_id is not None:
        query = query.where(WorkOrderCost.id != except_id)
    query = query.order_by(WorkOrderCost.started_at, WorkOrderCost.id).limit(1)
    return (await db.execute(query)).scalar_one_or_none()


async def remove(db: AsyncSession, cost_id: str) -> None:
    await db.execute(delete(WorkOrderCost).where(WorkOrderCost.id == cost_id))


async def rate(db: AsyncSession, workspace_id: str, user_id: str) -> LabourRate | None:
    query = select(LabourRate).where(
        LabourRate.workspace_id == workspace_id, LabourRate.user_id == user_id
    )
    return (await db.execute(query)).scalar_one_or_none()


async def is_member(db: AsyncSession, workspace_id: str, user_id: str) -> bool:
    query = select(Membership.id).where(
        Membership.workspace_id == workspace_id, Membership.user_id == user_id
    )
    return (await db.execute(query)).first() is not None
