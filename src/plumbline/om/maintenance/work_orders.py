"""Preventive work orders: one per schedule and due date, through the issue module's insert."""

from __future__ import annotations

from datetime import date

from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import Forbidden
from plumbline.issue import service as issues
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import MaintenanceSchedule
from plumbline.om import recurrence
from plumbline.om.maintenance import repository as repo
from plumbline.om.maintenance.service import due
from plumbline.records import Notice

ASSIGNED = Notice(
    "ISSUE_ASSIGNED", "You were assigned work order #{n}: {title}", "work order #{n}", "issues"
)


class WorkOrderService:
    async def generate(self, uow: UnitOfWork, ctx: ProjectContext) -> dict[str, list[str]]:
        """One PREVENTIVE work order per active schedule due by the end of today (the project's
        day), unless one exists for that schedule and due date: the claim's unique key decides,
        so concurrent calls create each once. External collaborators do not generate (403)."""
        if ctx.is_external:
            raise Forbidden("External collaborators work on the work orders they are given")
        db = uow.session
        tz = recurrence.zone(ctx.project.timezone)
        now = clock.now()
        end = recurrence.end_of_day(recurrence.local_day(now, tz), tz)
        created_ids: list[str] = []
        existing: list[str] = []
        for schedule in await repo.due_by(db, ctx.project.id, end):
            due_at = due(schedule)
            issue_id = new_id()
            claim = {
                "id": new_id(),
                "schedule_id": schedule.id,
                "project_id": ctx.project.id,
                "due_at": due_at,
                "issue_id": issue_id,
                "created_at": now,
            }
            if not await repo.claim(db, claim):
                existing.append(await repo.claimed_issue(db, schedule.id, due_at))
                continue
            await self._work_order(uow, ctx, schedule, issue_id, recurrence.local_day(due_at, tz))
            created_ids.append(issue_id)
        return {"created": created_ids, "existing": existing}

    async def _work_order(
        self,
        uow: UnitOfWork,
        ctx: ProjectContext,
        schedule: MaintenanceSchedule,
        issue_id: str,
        due_day: date,
    ) -> None:
        """The work order (numbered, audited), with the schedule's title, priority, assignee
        (notified) and checklist, all undone."""
        values = issues.new_issue(
            ctx.project.id,
            ctx.workspace.id,
            ctx.principal,
            id=issue_id,
            title=schedule.title,
            description=schedule.description,
            priority=schedule.priority,
            issue_kind="WORK_ORDER",
            assignee_id=schedule.assignee_id,
            due_date=due_day,
            asset_id=schedule.asset_id,
            work_order_type="PREVENTIVE",
            maintenance_schedule_id=schedule.id,
            checklist=[
                {"id": new_id(), "label": item["label"], "done": False}
                for item in schedule.checklist
            ],
        )
        await uow.session.flush()
        number = (await issues.issue.insert(uow.session, ctx.principal, values))["number"]
        if schedule.assignee_id is not None:
            await ASSIGNED.send(
                uow,
                ctx,
                [schedule.assignee_id],
                record_id=issue_id,
                number=number,
                title=schedule.title,
            )


work_orders = WorkOrderService()
