"""Every work-order cost query: always within one project."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.issue import repository as issues
from plumbline.issue.schemas import COSTED
from plumbline.kit.pagination import PageParams
from plumbline.models import Issue, LabourRate, Membership, WorkOrderCost
from plumbline.om.costs.schemas import CostFilters, CostRead
from plumbline.records.fields import Fields
from plumbline.records.visibility import Visibility

FIELDS = Fields(WorkOrderCost.__table__, {n: to_snake(n) for n in CostRead.model_fields})


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
