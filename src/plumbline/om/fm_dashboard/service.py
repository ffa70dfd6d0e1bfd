"""The FM dashboard (PRODUCT §9): each figure is defined in ``docs/om-inspections.md`` (cost
and availability in ``docs/maintenance-cost.md``); days are the project's (its time zone),
instants come from the injected clock."""

from __future__ import annotations

from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.kit import clock, money
from plumbline.om.fm_dashboard import repository as repo
from plumbline.om.fm_dashboard.schemas import FmDashboardRead
from plumbline.om.recurrence import DUE_SOON_DAYS, end_of_day, local_day, zone
from plumbline.om.reliability.schemas import Window
from plumbline.om.reliability.service import downtime

# The figures in the spec's order: the response's.
ORDER = tuple(FmDashboardRead.model_fields)


def _one_decimal(value: Any) -> float | None:
    if value is None:
        return None
    return float(Decimal(str(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def window(ctx: ProjectContext) -> repo.Window:
    """The instants the figures count from, on the project's days; weeks end on Sunday."""
    now = clock.now()
    tz = zone(ctx.project.timezone)
    today = local_day(now, tz)
    sunday = today + timedelta(days=6 - today.weekday())
    return repo.Window(
        now=now,
        start_of_today=end_of_day(today - timedelta(days=1), tz),
        end_of_week=end_of_day(sunday, tz),
        end_of_due_soon=end_of_day(today + timedelta(days=DUE_SOON_DAYS), tz),
        week_ago=now - timedelta(days=7),
        month_ago=now - timedelta(days=30),
    )


class FmDashboardService:
    async def figures(self, db: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
        """The dashboard's figures (``docs/om.md``) in the spec's order."""
        found = await repo.figures(db, ctx.project.id, window(ctx))
        # Compliance: on-time completions against everything that was due in the window,
        # i.e. the completions plus what is overdue and not done.
        due = found["completions"] + found["overdueMaintenance"]
        found["pmCompliancePct"] = (
            _one_decimal(Decimal(100 * found["onTime"]) / due) if due else None
        )
        found["mttrHours"] = _one_decimal(found["mttrHours"])
        cost = money.text(Decimal(found["maintenanceCostLast30Days"]))
        # the project's money is the team's (om/auth.py, CanReadOmMoney)
        found["maintenanceCostLast30Days"] = None if ctx.is_external else cost
        # The mean availability of the live assets over the same 30 days (the reliability
        # report's definition and its three statements).
        at = window(ctx)
        assets = await downtime.report(db, ctx, Window(at.month_ago, at.now))
        total = sum((Decimal(str(a["availability"])) for a in assets), Decimal(0))
        found["availabilityLast30Days"] = (
            float((total / len(assets)).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP))
            if assets
            else None
        )
        return {name: found[name] for name in ORDER}


fm_dashboard = FmDashboardService()
