"""Maintenance-schedule rules: recurrence by frequency and basis (``om.recurrence``), meter
triggers, derived health, preventive work orders generated once per schedule and due date, and
completions (one per work order) that advance the schedule.

Access (om/auth.py): MANAGER+ sets schedules up and pauses them; whoever works on work orders
reads them, generates the due work orders and records completions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created, diff
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import Forbidden, InvalidField

# A module import: the issue service imports this one back (a resolved PREVENTIVE work order
# completes its schedule).
from plumbline.issue import service as issues
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import Asset, Issue, MaintenanceCompletion, MaintenanceSchedule
from plumbline.om import recurrence
from plumbline.om.errors import AlreadyCompleted, ScheduleNotFound
from plumbline.om.maintenance import repository as repo
from plumbline.om.maintenance.repository import FIELDS
from plumbline.om.maintenance.schemas import CompleteBody, ScheduleCreate, ScheduleUpdate, check
from plumbline.records import Notice, references
from plumbline.records.references import ASSET
from plumbline.records.repository import assignable

ENTITY = "maintenance_schedule"
AUDITED = (
    "title",
    "frequency",
    "description",
    "intervalDays",
    "basis",
    "calendarDueAt",
    "meterDueAt",
    "lastCompletedAt",
    "assigneeId",
    "priority",
    "meterType",
    "meterInterval",
    "meterThreshold",
    "checklist",
    "isActive",
)
WORK_ORDER_ASSIGNED = Notice(
    "ISSUE_ASSIGNED", "You were assigned work order #{n}: {title}", "work order #{n}", "issues"
)
METER_LABEL = "Meter/calendar"


def _float(value: Decimal | float | None) -> float | None:
    return None if value is None else float(value)


def _view(
    values: dict[str, Any],
    calendar_due: datetime,
    meter_due: datetime | None,
    ctx: ProjectContext,
) -> dict[str, Any]:
    tz = recurrence.zone(ctx.project.timezone)
    due = recurrence.effective_due(calendar_due, meter_due)
    values["nextDueAt"] = clock.iso(due)
    values["dueLabel"] = METER_LABEL if values["meterType"] else "Calendar"
    values["health"] = recurrence.health(due, clock.now(), tz)
    values["meterInterval"] = _float(values["meterInterval"])
    values["meterThreshold"] = _float(values["meterThreshold"])
    return values


def _read(schedule: MaintenanceSchedule, ctx: ProjectContext) -> dict[str, Any]:
    values = FIELDS.read(FIELDS.of(schedule))
    return _view(values, schedule.next_due_at, schedule.meter_due_at, ctx)


def _checklist(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{**item, "id": item.get("id") or new_id()} for item in items]


def _audited(schedule: MaintenanceSchedule) -> dict[str, Any]:
    return FIELDS.audited(schedule, AUDITED)


def _due(schedule: MaintenanceSchedule) -> datetime:
    return recurrence.effective_due(schedule.next_due_at, schedule.meter_due_at)


async def _meter_reading(db: AsyncSession, asset_id: str, meter_type: str) -> Decimal | None:
    meters = (await db.execute(select(Asset.meters).where(Asset.id == asset_id))).scalar_one()
    for meter in meters or ():
        if meter["type"] == meter_type and meter.get("lastReading") is not None:
            return Decimal(str(meter["lastReading"]))
    return None


def _meter_met(schedule: MaintenanceSchedule, value: Decimal) -> bool:
    if schedule.meter_threshold is not None:
        return value >= schedule.meter_threshold
    if schedule.meter_interval is not None:
        return value >= (schedule.meter_baseline or Decimal(0)) + schedule.meter_interval
    return False


def may_complete(ctx: ProjectContext, schedule: MaintenanceSchedule) -> None:
    """Who completes a schedule, by its route or by resolving one of its PREVENTIVE work
    orders: internal members and keys any, an external collaborator only one assigned to them."""
    if ctx.is_external and schedule.assignee_id != ctx.user_id:
        raise Forbidden("External collaborators complete only the schedules assigned to them")


class MaintenanceService:
    async def list_schedules(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str | None, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_rows(db, ctx.project.id, asset_id, page))
        width = len(FIELDS.columns)
        return [_view(FIELDS.row(row), row[width], row[width + 1], ctx) for row in rows], headers

    async def require(
        self, db: AsyncSession, ctx: ProjectContext, schedule_id: str, *, lock: bool = False
    ) -> MaintenanceSchedule:
        schedule = await repo.get(db, ctx.project.id, schedule_id, lock=lock)
        if schedule is None:
            raise ScheduleNotFound()
        return schedule

    async def get(self, db: AsyncSession, ctx: ProjectContext, schedule_id: str) -> dict[str, Any]:
        return _read(await self.require(db, ctx, schedule_id), ctx)

    async def _asset(self, db: AsyncSession, ctx: ProjectContext, asset_id: str) -> Asset:
        query = select(Asset).where(
            Asset.id == asset_id, Asset.project_id == ctx.project.id, Asset.deleted_at.is_(None)
        )
        asset = (await db.execute(query)).scalar_one_or_none()
        if asset is None:
            raise references.refused(ASSET, "assetId")
        return asset

    async def _assignee(self, db: AsyncSession, ctx: ProjectContext, user_id: str) -> None:
        if user_id not in await assignable(db, ctx, [user_id]):
            raise InvalidField(
                "assigneeId", "the assignee must be someone who can work on this project"
            )

    @staticmethod
    def _meter(asset: Asset, meter_type: str) -> Decimal | None:
        """The asset's last reading of ``meter_type`` (400 when it has no such meter)."""
        meter = next((m for m in asset.meters if m["type"] == meter_type), None)
        if meter is None:
            raise InvalidField("meterType", "the asset has no meter of this type")
        last = meter.get("lastReading")
        return None if last is None else Decimal(str(last))

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, body: ScheduleCreate
    ) -> dict[str, Any]:
        asset = await self._asset(db, ctx, body.asset_id)
        baseline = self._meter(asset, body.meter_type) if body.meter_type else None
        if body.assignee_id is not None:
            await self._assignee(db, ctx, body.assignee_id)
        tz = recurrence.zone(ctx.project.timezone)
        now = clock.now()
        due = body.next_due_at or now
        schedule = MaintenanceSchedule(
            id=new_id(),
            project_id=ctx.project.id,
            workspace_id=ctx.workspace.id,
            asset_id=asset.id,
            title=body.title,
            description=body.description,
            frequency=body.frequency,
            interval_days=body.interval_days,
            basis=body.basis,
            anchor_day=recurrence.local_day(due, tz).day,
            next_due_at=due,
            assignee_id=body.assignee_id,
            priority=body.priority,
            meter_type=body.meter_type,
            meter_interval=_decimal(body.meter_interval),
            meter_threshold=_decimal(body.meter_threshold),
            meter_baseline=baseline,
            checklist=_checklist([item.model_dump() for item in body.checklist]),
            is_active=body.is_active,
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
        )
        db.add(schedule)
        await db.flush()
        await audit_change(
            db,
            ctx,
            (ENTITY, schedule.id),
            "maintenance_schedule.created",
            created(_audited(schedule)),
        )
        return _read(schedule, ctx)

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, schedule_id: str, body: ScheduleUpdate
    ) -> dict[str, Any]:
        schedule = await self.require(db, ctx, schedule_id, lock=True)
        changes = body.sent()
        merged = {
            key: changes.get(key, getattr(schedule, key))
            for key in (
                "frequency",
                "interval_days",
                "meter_type",
                "meter_interval",
                "meter_threshold",
            )
        }
        if merged["frequency"] != "CUSTOM" and "frequency" in changes:
            merged["interval_days"] = changes["interval_days"] = changes.get("interval_days")
        try:
            check(*(merged[key] for key in merged))
        except ValueError as error:
            raise InvalidField("body", str(error)) from None
        if changes.get("assignee_id") not in (None, schedule.assignee_id):
            await self._assignee(db, ctx, changes["assignee_id"])
        meter_keys = ("meter_type", "meter_interval", "meter_threshold")
        if any(key in changes for key in meter_keys):
            for key in ("meter_interval", "meter_threshold"):
                if key in changes:
                    changes[key] = _decimal(changes[key])
            if merged["meter_type"] is not None:
                asset = await self._asset(db, ctx, schedule.asset_id)
                changes["meter_baseline"] = self._meter(asset, merged["meter_type"])
            else:
                changes["meter_baseline"] = None
            changes["meter_due_at"] = None
        if "next_due_at" in changes:
            tz = recurrence.zone(ctx.project.timezone)
            changes["anchor_day"] = recurrence.local_day(changes["next_due_at"], tz).day
        if "checklist" in changes:
            changes["checklist"] = _checklist(changes["checklist"])
        before = _audited(schedule)
        for column, value in changes.items():
            setattr(schedule, column, value)
        changed = diff(before, _audited(schedule))
        if changed:
            schedule.updated_at = clock.now()
            await audit_change(
                db, ctx, (ENTITY, schedule.id), "maintenance_schedule.updated", changed
            )
        await db.flush()
        return _read(schedule, ctx)

    async def meter_read(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        asset_id: str,
        meter_type: str,
        value: Decimal,
        read_at: datetime,
    ) -> None:
        """A new last reading: each active schedule on this meter whose condition it meets
        (since its last completion) becomes due at the reading's time."""
        for schedule in await repo.meter_schedules(db, asset_id, meter_type):
            since = schedule.last_completed_at or schedule.created_at
            if schedule.meter_due_at is None and read_at >= since and _meter_met(schedule, value):
                schedule.meter_due_at = read_at
                await audit_change(
                    db,
                    ctx,
                    (ENTITY, schedule.id),
                    "maintenance_schedule.meter_due",
                    {"meterDueAt": [None, clock.iso(read_at)]},
                )

    async def generate(self, uow: UnitOfWork, ctx: ProjectContext) -> dict[str, list[str]]:
        """One PREVENTIVE work order per active schedule due by the end of today (the project's
        day), unless one exists for that schedule and due date: the claim's unique key decides,
        so concurrent calls create each once."""
        if ctx.is_external:
            raise Forbidden("External collaborators work on the work orders they are given")
        db = uow.session
        tz = recurrence.zone(ctx.project.timezone)
        now = clock.now()
        end = recurrence.end_of_day(recurrence.local_day(now, tz), tz)
        created_ids: list[str] = []
        existing: list[str] = []
        for schedule in await repo.due_by(db, ctx.project.id, end):
            due = _due(schedule)
            issue_id = new_id()
            claim = {
                "id": new_id(),
                "schedule_id": schedule.id,
                "project_id": ctx.project.id,
                "due_at": due,
                "issue_id": issue_id,
                "created_at": now,
            }
            if not await repo.claim(db, claim):
                existing.append(await repo.claimed_issue(db, schedule.id, due))
                continue
            await self._work_order(uow, ctx, schedule, issue_id, recurrence.local_day(due, tz))
            created_ids.append(issue_id)
        return {"created": created_ids, "existing": existing}

    async def _work_order(
        self,
        uow: UnitOfWork,
        ctx: ProjectContext,
        schedule: MaintenanceSchedule,
        issue_id: str,
        due_day: Any,
    ) -> None:
        """The work order, through the issue module's insert (numbered, audited)."""
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
            await WORK_ORDER_ASSIGNED.send(
                uow,
                ctx,
                [schedule.assignee_id],
                record_id=issue_id,
                number=number,
                title=schedule.title,
            )

    async def complete(
        self, db: AsyncSession, ctx: ProjectContext, schedule_id: str, body: CompleteBody
    ) -> dict[str, Any]:
        """Once per due date: a completion meets the schedule's current due date (or its work
        order's); a call on the same day as an earlier completion of the schedule (the project's
        day), or for a due date already met, answers that completion and changes nothing, so
        repeated or concurrent calls record one (the schedule's row lock orders them)."""
        schedule = await self.require(db, ctx, schedule_id, lock=True)
        may_complete(ctx, schedule)
        now = clock.now()
        completed_at = body.completed_at or now
        if completed_at > now:
            raise InvalidField("completedAt", "a completion cannot be in the future")
        due = _due(schedule)
        if body.work_order_id is not None:
            order = await repo.work_order(db, ctx.project.id, body.work_order_id)
            if order is None or order.maintenance_schedule_id != schedule.id:
                raise InvalidField("workOrderId", "no work order of this schedule has this id")
            if await repo.completed_work_order(db, order.id):
                raise AlreadyCompleted()
            due = await repo.work_order_due(db, order.id) or due
            earlier = await repo.completion_due(db, schedule.id, due)
        else:
            tz = recurrence.zone(ctx.project.timezone)
            day = recurrence.local_day(completed_at, tz)
            start = recurrence.end_of_day(day - timedelta(days=1), tz)
            earlier = await repo.completion_between(
                db, schedule.id, start, recurrence.end_of_day(day, tz)
            )
        if earlier is None:
            earlier = await self._complete(
                db, ctx, schedule, due, completed_at, body.work_order_id, body.notes
            )
        return _completion(earlier) | {"schedule": _read(schedule, ctx)}

    async def complete_work_order(
        self, db: AsyncSession, ctx: ProjectContext, order: Issue
    ) -> None:
        """A PREVENTIVE work order resolved through the issue routes completes its schedule, by
        the rule of the schedule's route (``may_complete``), once per work order (resolve,
        reopen, resolve: one completion) and not for a due date already met."""
        if order.work_order_type != "PREVENTIVE" or order.maintenance_schedule_id is None:
            return
        schedule = await repo.get(db, ctx.project.id, order.maintenance_schedule_id, lock=True)
        if schedule is None or await repo.completed_work_order(db, order.id):
            return
        may_complete(ctx, schedule)
        due = await repo.work_order_due(db, order.id) or _due(schedule)
        if await repo.completion_due(db, schedule.id, due) is None:
            await self._complete(db, ctx, schedule, due, clock.now(), order.id, None)

    async def _complete(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        schedule: MaintenanceSchedule,
        due: datetime,
        completed_at: datetime,
        work_order_id: str | None,
        notes: str | None,
    ) -> MaintenanceCompletion:
        """Record the completion and advance the calendar by the basis; a met meter condition
        is cleared and the meter's baseline becomes its reading now."""
        tz = recurrence.zone(ctx.project.timezone)
        before = _audited(schedule)
        reading = (
            await _meter_reading(db, schedule.asset_id, schedule.meter_type)
            if schedule.meter_type
            else None
        )
        completion = MaintenanceCompletion(
            id=new_id(),
            schedule_id=schedule.id,
            project_id=ctx.project.id,
            workspace_id=ctx.workspace.id,
            work_order_id=work_order_id,
            due_at=due,
            completed_at=completed_at,
            completed_by=ctx.user_id,
            on_time=recurrence.on_time(due, completed_at, tz),
            notes=notes,
            meter_reading=reading,
            created_at=clock.now(),
        )
        await repo.add_completion(db, completion)
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
        changes = diff(before, _audited(schedule)) | {"onTime": [None, completion.on_time]}
        await audit_change(
            db, ctx, (ENTITY, schedule.id), "maintenance_schedule.completed", changes
        )
        await db.flush()
        return completion


def _completion(completion: MaintenanceCompletion) -> dict[str, Any]:
    return {
        "id": completion.id,
        "scheduleId": completion.schedule_id,
        "workOrderId": completion.work_order_id,
        "dueAt": clock.iso(completion.due_at),
        "completedAt": clock.iso(completion.completed_at),
        "completedBy": completion.completed_by,
        "onTime": completion.on_time,
        "notes": completion.notes,
    }


def _decimal(value: float | None) -> Decimal | None:
    return None if value is None else Decimal(str(value)).quantize(Decimal("0.0001"))


maintenance = MaintenanceService()
