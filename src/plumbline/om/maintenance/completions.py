"""Maintenance completions: who may complete a schedule, once per due date, and how a completion
advances the schedule (by its route or by a resolved PREVENTIVE work order)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, diff
from plumbline.authz.project import ProjectContext
from plumbline.errors import Forbidden, InvalidField
from plumbline.issue.hooks import Done
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import MaintenanceCompletion, MaintenanceSchedule
from plumbline.om import recurrence
from plumbline.om.errors import AlreadyCompleted
from plumbline.om.maintenance import repository as repo
from plumbline.om.maintenance.schemas import CompleteBody, CompletionRead
from plumbline.om.maintenance.service import ENTITY, audited, due, last_reading, maintenance, read
from plumbline.records.fields import Fields


def may_complete(ctx: ProjectContext, schedule: MaintenanceSchedule) -> None:
    """Who completes a schedule, by its route or by resolving one of its PREVENTIVE work
    orders: internal members and keys any, an external collaborator only one assigned to them."""
    if ctx.is_external and schedule.assignee_id != ctx.user_id:
        raise Forbidden("External collaborators complete only the schedules assigned to them")


# The answer, but for its schedule: each field the completion's column of the same name.
ANSWER = Fields(
    MaintenanceCompletion.__table__,
    {name: to_snake(name) for name in CompletionRead.model_fields if name != "schedule"},
)


class CompletionService:
    async def complete(
        self, db: AsyncSession, ctx: ProjectContext, schedule_id: str, body: CompleteBody
    ) -> dict[str, Any]:
        """Once per due date: a completion meets the schedule's current due date (or its work
        order's); a call on the same day as an earlier completion of the schedule (the project's
        day), or for a due date already met, answers that completion and changes nothing, so
        repeated or concurrent calls record one (the schedule's row lock orders them)."""
        schedule = await maintenance.require(db, ctx, schedule_id, lock=True)
        may_complete(ctx, schedule)
        now = clock.now()
        completed_at = body.completed_at or now
        if completed_at > now:
            raise InvalidField("completedAt", "a completion cannot be in the future")
        due_at = due(schedule)
        if body.work_order_id is not None:
            order = await repo.work_order(db, ctx.project.id, body.work_order_id)
            if order is None or order.maintenance_schedule_id != schedule.id:
                raise InvalidField("workOrderId", "no work order of this schedule has this id")
            if await repo.completed_work_order(db, order.id):
                raise AlreadyCompleted()
            due_at = await repo.work_order_due(db, order.id) or due_at
            earlier = await repo.completion_due(db, schedule.id, due_at)
        else:
            tz = recurrence.zone(ctx.project.timezone)
            day = recurrence.local_day(completed_at, tz)
            start = recurrence.end_of_day(day - timedelta(days=1), tz)
            earlier = await repo.completion_between(
                db, schedule.id, start, recurrence.end_of_day(day, tz)
            )
        if earlier is None:
            earlier = await self._complete(
                db, ctx, schedule, due_at, completed_at, body.work_order_id, body.notes
            )
        return ANSWER.read(ANSWER.of(earlier), schedule=read(schedule, ctx))

    async def complete_work_order(self, event: Done) -> None:
        """A PREVENTIVE work order resolved through the issue routes completes its schedule, by
        the rule of the schedule's route (``may_complete``), once per work order (resolve,
        reopen, resolve: one completion) and not for a due date already met."""
        db, ctx, order = event.db, event.ctx, event.issue
        if order.work_order_type != "PREVENTIVE" or order.maintenance_schedule_id is None:
            return
        schedule = await repo.get(db, ctx.project.id, order.maintenance_schedule_id, lock=True)
        if schedule is None or await repo.completed_work_order(db, order.id):
            return
        may_complete(ctx, schedule)
        due_at = await repo.work_order_due(db, order.id) or due(schedule)
        if await repo.completion_due(db, schedule.id, due_at) is None:
            await self._complete(db, ctx, schedule, due_at, clock.now(), order.id, None)

    async def _complete(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        schedule: MaintenanceSchedule,
        due_at: datetime,
        completed_at: datetime,
        work_order_id: str | None,
        notes: str | None,
    ) -> MaintenanceCompletion:
        """Record the completion and advance the calendar by the basis; a met meter condition
        is cleared and the meter's baseline becomes its reading now."""
        tz = recurrence.zone(ctx.project.timezone)
        before = audited(schedule)
        reading = (
            last_reading(await repo.asset_meters(db, schedule.asset_id), schedule.meter_type)
            if schedule.meter_type
            else None
        )
        completion = MaintenanceCompletion(
            id=new_id(),
            schedule_id=schedule.id,
            project_id=ctx.project.id,
            workspace_id=ctx.workspace.id,
            work_order_id=work_order_id,
            due_at=due_at,
            completed_at=completed_at,
            completed_by=ctx.user_id,
            on_time=recurrence.on_time(due_at, completed_at, tz),
            notes=notes,
            meter_reading=reading,
            created_at=clock.now(),
        )
        db.add(completion)
        await db.flush()
        schedule.next_due_at, schedule.anchor_day = recurrence.next_due(
            basis=schedule.basis,
            frequency=schedule.frequency,
            interval_days=schedule.interval_days,
            anchor_day=schedule.anchor_day,
            calendar_due=schedule.next_due_at,
            completed_at=completed_at,
            tz=tz,
        )
        if schedule.last_completed_at is None or completed_at > schedule.last_completed_at:
            schedule.last_completed_at = completed_at
        if schedule.meter_type:
            schedule.meter_due_at = None
            schedule.meter_baseline = reading
        schedule.updated_at = clock.now()
        changes = diff(before, audited(schedule)) | {"onTime": [None, completion.on_time]}
        await audit_change(
            db, ctx, (ENTITY, schedule.id), "maintenance_schedule.completed", changes
        )
        await db.flush()
        return completion


completions = CompletionService()
