"""The O&M digests (PRODUCT §13): what each lists, under which heading, for whom."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.plans import Feature, plan_has
from plumbline.authz.project import module_on
from plumbline.digest import repository as repo
from plumbline.digest.service import Digest, Item
from plumbline.kit.money import number_text

WEEK = timedelta(days=7)
MONTH = timedelta(days=30)


def _item(
    project: Sequence[Any], group: str, text: str, path: str, assignee: str | None = None
) -> Item | None:
    """An item of the project whose columns (``repo.PROJECT``) end a row; None when that
    project's O&M is off (the module, or a plan without it)."""
    project_id, project_name, workspace_id, modules, operations_mode, plan = project
    if not (module_on(modules, operations_mode, "om") and plan_has(plan, Feature.OM)):
        return None
    href = f"/projects/{project_id}{path}"
    return Item(workspace_id, project_id, project_name, group, text, href, assignee)


async def ageing_work_orders(db: AsyncSession, now: datetime) -> list[Item]:
    """Open or in-progress work orders open for 7 days or more; 30 days or more under their
    own heading."""
    items = []
    for row in await repo.ageing_work_orders(db, now - WEEK):
        issue_id, number, title, status, created_at, assignee = row[:6]
        days = (now - created_at).days
        group = (
            "Open for 30 days or more" if created_at <= now - MONTH else "Open for 7 days or more"
        )
        text = f"#{number} {title} ({status.replace('_', ' ').lower()}, {days} days)"
        items.append(_item(row[6:], group, text, f"/issues/{issue_id}", assignee))
    return [item for item in items if item]


def _window_end(now: datetime) -> datetime:
    """The end of the 7-day due window: midnight UTC seven days after today began (a thing due
    then is in, a second later out)."""
    return now.replace(hour=0, minute=0, second=0, microsecond=0) + WEEK


def _due_group(due: datetime, now: datetime) -> str:
    return "Overdue" if due < now else "Due within 7 days"


async def due_maintenance(db: AsyncSession, now: datetime) -> list[Item]:
    """Schedules overdue or due within the window, by the calendar or the meter; a schedule
    with a meter is labelled "Meter/calendar" (due at whichever comes first)."""
    items = []
    for row in await repo.due_schedules(db, _window_end(now)):
        schedule_id, title, next_due, meter_due, meter_type, assignee, tag, asset = row[:8]
        due = min(d for d in (next_due, meter_due) if d is not None)
        label = " (Meter/calendar)" if meter_type else ""
        text = f"{title} — {tag} {asset}, due {due.date().isoformat()}{label}"
        path = f"/om/maintenance/{schedule_id}"
        items.append(_item(row[8:], _due_group(due, now), text, path, assignee))
    return [item for item in items if item]


async def due_inspections(db: AsyncSession, now: datetime) -> list[Item]:
    """Inspection templates overdue or due within the window."""
    items = []
    for row in await repo.due_inspections(db, _window_end(now)):
        template_id, name, due = row[:3]
        text, path = (
            f"{name}, due {due.date().isoformat()}",
            f"/om/inspection-templates/{template_id}",
        )
        items.append(_item(row[3:], _due_group(due, now), text, path))
    return [item for item in items if item]


async def low_stock(db: AsyncSession, now: datetime) -> list[Item]:
    """Parts below their minimum at a location (issue 29): listed while they stay below."""
    items = []
    for row in await repo.low_stock(db):
        name, unit, on_hand, minimum, location_id, location = row[:6]
        text = (
            f"{name} at {location}: {number_text(Decimal(on_hand))} {unit} "
            f"(minimum {number_text(Decimal(minimum))})"
        )
        path = f"/om/stock?locationId={location_id}"
        items.append(_item(row[6:], "Parts below their minimum", text, path))
    return [item for item in items if item]


async def maintenance_and_stock(db: AsyncSession, now: datetime) -> list[Item]:
    return await due_maintenance(db, now) + await low_stock(db, now)


WORK_ORDER_AGING = Digest(
    kind="om-work-order-aging",
    notification_kind="WORK_ORDER_AGING",
    subject="Work orders open too long",
    intro="These work orders have been open for a week or more.",
    collect=ageing_work_orders,
)
MAINTENANCE = Digest(
    kind="om-maintenance",
    notification_kind="MAINTENANCE_DUE",
    subject="Maintenance due",
    intro="These maintenance schedules are overdue or due within 7 days, and these parts are "
    "below their minimum.",
    collect=maintenance_and_stock,
    assignees_too=True,
)
INSPECTIONS = Digest(
    kind="om-inspections",
    notification_kind="INSPECTION_DUE",
    subject="Inspections due",
    intro="These inspections are overdue or due within 7 days.",
    collect=due_inspections,
)
