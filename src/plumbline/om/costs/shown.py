"""A work order's cost lines as its page shows them (``pages/issues/record.py``), under the
rule of ``/om/work-orders/{id}/costs``."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, check_access
from plumbline.errors import AppError
from plumbline.issue.schemas import COSTED
from plumbline.om.costs.service import costs as cost_service


async def shown(db: AsyncSession, ctx: ProjectContext, issue: dict[str, Any]) -> Any:
    """A work order's cost lines as ``/om/work-orders/{id}/costs`` answers them, when the
    caller may read them there; else None (the issue's totals still show)."""
    if issue["issueKind"] not in COSTED:
        return None
    try:
        check_access(ctx, scope=None, module="om", feature=Feature.OM, write=False)
        ctx.require(Permission.OM_WORK)
        return await cost_service.costs(db, ctx, issue["id"])
    except AppError:
        return None
