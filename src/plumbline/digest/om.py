"""The O&M digests (PRODUCT §13): what each lists, under which heading, for whom."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.plans import Feature, plan_has
from plumbline.authz.project import module_on
from plumbline.digest import repository as repo
from plumbline.digest.service import Digest, Item

WEEK = timedelta(days=7)
MONTH = timedelta(days=30)


def _om_on(modules: dict[str, Any], operations_mode: bool, plan: str) -> bool:
    return module_on(modules, operations_mode, "om") and plan_has(plan, Feature.OM)


async def ageing_work_orders(db: AsyncSession, now: datetime) -> list[Item]:
    """Open or in-progress work orders open for 7 days or more; 30 days or more under their
    own heading."""
    items = []
    for row in await repo.ageing_work_orders(db, now - WEEK):
        issue_id, number, title, status, created_at, assignee = row[:6]
        project_id, project_name, workspace_id, modules, operations_mode, plan = row[6:]
        if not _om_on(modules, operations_mode, plan):
            continue
        days = (now - created_at).days
        group = (
            "Open for 30 days or more" if created_at <= now - MONTH else "Open for 7 days or more"
        )
        items.append(
            Item(
                workspace_id=workspace_id,
                project_id=project_id,
                project_name=project_name,
                group=group,
                text=f"#{number} {title} ({status.replace('_', ' ').lower()}, {days} days)",
                href=f"/projects/{project_id}/issues/{issue_id}",
                assignee_id=assignee,
            )
        )
    return items


WORK_ORDER_AGING = Digest(
    kind="om-work-order-aging",
    notification_kind="WORK_ORDER_AGING",
    subject="Work orders open too long",
    intro="These work orders have been open for a week or more.",
    collect=ageing_work_orders,
)
DIGESTS: dict[str, Digest] = {digest.kind: digest for digest in (WORK_ORDER_AGING,)}
