"""Billing queries: processor events and the workspace an event names."""

from __future__ import annotations

from typing import cast

from sqlalchemy import Insert, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit import clock
from plumbline.models import BillingEvent, Workspace


async def claim_event(db: AsyncSession, event_id: str, kind: str) -> BillingEvent | None:
    """Records the event before it is applied; None when it is already recorded. A concurrent
    delivery of the same event waits on the primary key until this transaction ends, then
    finds it recorded (a replay) or, if this one rolled back, claims it itself: never applied
    twice, never refused."""
    module = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    statement = cast(
        Insert,
        module.insert(BillingEvent)
        .values(event_id=event_id, type=kind, outcome="received", received_at=clock.now())
        .on_conflict_do_nothing()
        .returning(BillingEvent.event_id),
    )
    if (await db.execute(statement)).scalar_one_or_none() is None:
        return None
    return await db.get(BillingEvent, event_id)


async def workspace(db: AsyncSession, workspace_id: str) -> Workspace | None:
    """The live workspace, read only (the local processor's pages)."""
    return await db.scalar(
        select(Workspace).where(Workspace.id == workspace_id, Workspace.deleted_at.is_(None))
    )


async def live_workspace(db: AsyncSession, workspace_id: str) -> Workspace | None:
    return await db.scalar(
        select(Workspace)
        .where(Workspace.id == workspace_id, Workspace.deleted_at.is_(None))
        .with_for_update()
    )


async def workspace_of(
    db: AsyncSession, subscription_id: str | None, customer_id: str | None
) -> Workspace | None:
    """The live workspace holding the subscription, else the one billed to the customer."""
    clauses = []
    if subscription_id:
        clauses.append(Workspace.billing_subscription_id == subscription_id)
    if customer_id:
        clauses.append(Workspace.billing_customer_id == customer_id)
    if not clauses:
        return None
    rows = (
        await db.scalars(
            select(Workspace)
            .where(or_(*clauses), Workspace.deleted_at.is_(None))
            .order_by(Workspace.id)
            .with_for_update()
        )
    ).all()
    for workspace in rows:
        if subscription_id and workspace.billing_subscription_id == subscription_id:
            return workspace
    return rows[0] if rows else None
