"""The workspace's labour rates (``/workspaces/{workspaceId}/om/labour-rates``): a member's
hourly rate, used by their labour entries when none is given (MANAGER+ sets it)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.authz.workspace import WorkspaceContext
from plumbline.errors import NotFound, found
from plumbline.kit import clock
from plumbline.kit.money import number_text
from plumbline.models import LabourRate
from plumbline.om.costs import repository as repo
from plumbline.om.costs.schemas import RateSet


class LabourRates:
    async def set_rate(
        self, db: AsyncSession, ctx: WorkspaceContext, user_id: str, body: RateSet
    ) -> dict[str, Any]:
        """A member's hourly rate (MANAGER+), used by their labour entries from now on."""
        if not await repo.is_member(db, ctx.workspace.id, user_id):
            raise NotFound("Member not found")
        rate = await repo.rate(db, ctx.workspace.id, user_id)
        now = clock.now()
        old = None if rate is None else number_text(Decimal(rate.hourly_rate))
        if rate is None:
            rate = LabourRate(
                workspace_id=ctx.workspace.id,
                user_id=user_id,
                hourly_rate=body.hourly_rate,
                updated_at=now,
            )
            db.add(rate)
        else:
            rate.hourly_rate = body.hourly_rate
            rate.updated_at = now
        await db.flush()
        new = number_text(body.hourly_rate)
        await audit_change(
            db, ctx, ("labour_rate", user_id), "labour_rate.set", {"hourlyRate": [old, new]}
        )
        return _rate_view(rate)

    async def get_rate(
        self, db: AsyncSession, ctx: WorkspaceContext, user_id: str
    ) -> dict[str, Any]:
        rate = found(await repo.rate(db, ctx.workspace.id, user_id), "Labour rate not found")
        return _rate_view(rate)


def _rate_view(rate: LabourRate) -> dict[str, Any]:
    return {
        "userId": rate.user_id,
        "workspaceId": rate.workspace_id,
        "hourlyRate": number_text(Decimal(rate.hourly_rate)),
        "updatedAt": clock.iso(rate.updated_at),
    }


rates = LabourRates()
