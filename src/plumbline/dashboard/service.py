"""The project dashboard: the project, its team, files, record counts and recent activity.

Who may read it: internal members with ``records:read`` and API keys with the ``project:read``
scope. External collaborators (clients, contractors) get 403: the counts and the activity feed
cover every record of the project, including the ones they are not shown.

Module switches: the ``files``, ``issues``, ``rfis``, ``punch`` and ``proposals`` keys are
always present and null while their module (``files``, ``issues``, ``rfi``, ``punch``,
``proposals``) is switched off for the project; a disabled module's query is not run and adds
nothing to the totals.

Dates are UTC calendar days (``clock.today()``). A record is *overdue* when it is open and its
due date is before today, *due in 7 days* when it is open and due between today and today + 7
inclusive. Open means: issues OPEN or IN_PROGRESS; RFIs OPEN or IN_REVIEW (an ANSWERED RFI
has its answer and waits only for the manager to close it); punch items anything but CLOSED
(READY_FOR_REVIEW still needs the work accepted). ``openWorkOrders`` counts issues of kind
WORK_ORDER that are open. ``proposals.pending`` counts the proposals sent (SENT or VIEWED) and
still within their validity: waiting for the client's answer. Deleted records are never counted.

Queries: the project access check, then one each for the team, the files, each enabled record
table (one GROUP BY status), the pending proposals and the activity: a fixed number whatever
the row counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit
from plumbline.authz.project import ProjectContext, module_enabled
from plumbline.dashboard import repository
from plumbline.dashboard.repository import StatusTally
from plumbline.errors import Forbidden
from plumbline.kit import clock
from plumbline.models import Issue, PunchItem, Rfi
from plumbline.project.service import project as project_service

RECENT_ACTIVITY = 20
DUE_SOON_DAYS = 7

ISSUE_STATUSES = ("OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED")
ISSUE_OPEN = ("OPEN", "IN_PROGRESS")
RFI_STATUSES = ("OPEN", "IN_REVIEW", "ANSWERED", "CLOSED")
RFI_OPEN = ("OPEN", "IN_REVIEW")
PUNCH_STATUSES = ("OPEN", "IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED")
PUNCH_OPEN = ("OPEN", "IN_PROGRESS", "READY_FOR_REVIEW")


def _section(
    tally: dict[str, StatusTally], statuses: Iterable[str], open_statuses: Iterable[str]
) -> dict[str, Any]:
    still_open = [tally[s] for s in open_statuses if s in tally]
    return {
        "byStatus": {s: tally[s].count if s in tally else 0 for s in statuses},
        "overdue": sum(t.past_due for t in still_open),
        "dueIn7Days": sum(t.due_soon for t in still_open),
    }


class DashboardService:
    async def project_dashboard(self, db: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
        """The project at a glance for internal members (403 to externals); off modules are null."""
        if ctx.is_external:
            raise Forbidden("The project dashboard is for workspace members")
        project = ctx.project
        today = clock.today()
        horizon = today + timedelta(days=DUE_SOON_DAYS)
        # One statement at a time: an AsyncSession does not run them concurrently.
        members = await project_service.team_size(db, ctx)
        files: dict[str, int] | None = None
        if module_enabled(project, "files"):
            count, size = await repository.file_totals(db, project_id=project.id)
            files = {"count": count, "storageBytes": size}
        window = (project.id, today, horizon)
        issues: dict[str, Any] | None = None
        if module_enabled(project, "issues"):
            tally = await repository.tally(db, Issue, *window)
            issues = _section(tally, ISSUE_STATUSES, ISSUE_OPEN)
            issues["openWorkOrders"] = sum(tally[s].work_orders for s in ISSUE_OPEN if s in tally)
        rfis = None
        if module_enabled(project, "rfi"):
            rfis = _section(await repository.tally(db, Rfi, *window), RFI_STATUSES, RFI_OPEN)
        punch = None
        if module_enabled(project, "punch"):
            tally = await repository.tally(db, PunchItem, *window)
            punch = _section(tally, PUNCH_STATUSES, PUNCH_OPEN)
        proposals = None
        if module_enabled(project, "proposals"):
            pending = await repository.pending_proposals(db, project.id, clock.now())
            proposals = {"pending": pending}
        sections = [s for s in (issues, rfis, punch) if s is not None]
        return {
            "project": {"id": project.id, "name": project.name, "stage": project.stage},
            "members": members,
            "files": files,
            "issues": issues,
            "rfis": rfis,
            "punch": punch,
            "proposals": proposals,
            "overdueItems": sum(s["overdue"] for s in sections),
            "itemsDueIn7Days": sum(s["dueIn7Days"] for s in sections),
            "activity": await audit.recent(db, project_id=project.id, limit=RECENT_ACTIVITY),
        }


dashboard = DashboardService()
