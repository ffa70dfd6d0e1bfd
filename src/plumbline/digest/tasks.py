"""The O&M digests as daily tasks, run by the scheduler, the internal routes and the CLI alike."""

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.digest.om import INSPECTIONS, MAINTENANCE, WORK_ORDER_AGING
from plumbline.digest.service import run
from plumbline.jobs.registry import Payload, task, unit_of_work
from plumbline.kit import clock


@task("digests.om_maintenance", daily=MAINTENANCE.kind)
async def maintenance(db: AsyncSession, payload: Payload) -> dict[str, Any]:
    """Daily (scheduler, ``/internal/om-maintenance-reminders``, CLI), once per workspace and
    UTC day: maintenance overdue or due within 7 days; managers get every schedule of the
    projects they see, others the ones assigned to them."""
    return await run(unit_of_work(db), MAINTENANCE, clock.now())


@task("digests.om_inspections", daily=INSPECTIONS.kind)
async def inspections(db: AsyncSession, payload: Payload) -> dict[str, Any]:
    """Daily (scheduler, ``/internal/om-inspection-reminders``, CLI), once per workspace and UTC
    day: inspections overdue or due within 7 days, to managers."""
    return await run(unit_of_work(db), INSPECTIONS, clock.now())


@task("digests.om_work_order_aging", daily=WORK_ORDER_AGING.kind)
async def work_order_aging(db: AsyncSession, payload: Payload) -> dict[str, Any]:
    """Daily (scheduler, ``/internal/om-work-order-aging-reminders``, CLI), once per workspace
    and UTC day: open or in-progress work orders 7 and 30 days old, to managers."""
    return await run(unit_of_work(db), WORK_ORDER_AGING, clock.now())
