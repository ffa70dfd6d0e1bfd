"""Maintenance schedules: set-up, recurrence by frequency and basis (``om.recurrence``), meter
triggers and derived health; their work orders and completions are in ``work_orders`` and
``completions``.

Access (om/auth.py): MANAGER+ sets schedules up and pauses them; whoever works on work orders
reads them, generates the due work orders and records completions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.project import ProjectContext
from plumbline.errors import InvalidField, found
from plumbline.events.readers import reader
from plumbline.issue.checklist import checklist
from plumbline.kit import clock
from plumbline.kit.pagination import PageParams
from plumbline.models import Asset, MaintenanceSchedule
from plumbline.om import recurrence
from plumbline.om.assets import repository as assets
from plumbline.om.errors import ScheduleNotFound
from plumbline.om.maintenance import repository as repo
from plumbline.om.maintenance.repository import FIELDS
from plumbline.om.maintenance.schemas import (
    MaintenanceScheduleCreate,
    MaintenanceScheduleUpdate,
    check,
)
from plumbline.records import add_record, references
from plumbline.records.references import ASSET

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
METER_LABEL = "Meter/calendar"
METER_KEYS = ("meter_type", "meter_interval", "meter_threshold")


def _decimal(value: float | None) -> Decimal | None:
    return None if value is None else Decimal(str(value)).quantize(Decimal("0.0001"))


def _view(
    values: dict[str, Any],
    calendar_due: datetime,
    meter_due: datetime | None,
    timezone: str | None,
) -> dict[str, Any]:
    tz = recurrence.zone(timezone)
    due = recurrence.effective_due(calendar_due, meter_due)
    values["nextDueAt"] = clock.iso(due)
    values["dueLabel"] = METER_LABEL if values["meterType"] else "Calendar"
    values["health"] = recurrence.health(due, clock.now(), tz)
    for name in ("meterInterval", "meterThreshold"):  # Decimal columns, numbers in the API
        values[name] = None if values[name] is None else float(values[name])
    return values


def read(schedule: MaintenanceSchedule, ctx: ProjectContext) -> dict[str, Any]:
    """The schedule as the API answers it, with its derived due date, label and health."""
    values = FIELDS.read(FIELDS.of(schedule))
    return _view(values, schedule.next_due_at, schedule.meter_due_at, ctx.project.timezone)


@reader("maintenance_schedule")
async def schedules_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    width = len(FIELDS.columns)
    return {
        row.id: _view(FIELDS.row(row), row[width], row[width + 1], row[width + 2])
        for row in await repo.rows_by_id(db, ids)
    }


def audited(schedule: MaintenanceSchedule) -> dict[str, Any]:
    return FIELDS.audited(schedule, AUDITED)


def due(schedule: MaintenanceSchedule) -> datetime:
    """A meter schedule is due when the calendar or the meter comes first."""
    return recurrence.effective_due(schedule.next_due_at, schedule.meter_due_at)


def last_reading(meters: Sequence[Mapping[str, Any]], meter_type: str) -> Decimal | None:
    """The last reading of the meter ``meter_type`` (None when it has none, or no such meter)."""
    last = next((m.get("lastReading") for m in meters if m["type"] == meter_type), None)
    return None if last is None else Decimal(str(last))


def _baseline(asset: Asset, meter_type: str) -> Decimal | None:
    """The asset's last reading of ``meter_type`` (400 when it has no such meter)."""
    if all(meter["type"] != meter_type for meter in asset.meters):
        raise InvalidField("meterType", "the asset has no meter of this type")
    return last_reading(asset.meters, meter_type)


def _meter_met(schedule: MaintenanceSchedule, value: Decimal) -> bool:
    if schedule.meter_threshold is not None:
        return value >= schedule.meter_threshold
    if schedule.meter_interval is not None:
        return value >= (schedule.meter_baseline or Decimal(0)) + schedule.meter_interval
    return False


class MaintenanceService:
    async def list_schedules(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str | None, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's schedules, newest first, of one asset when ``asset_id`` is given."""
        rows, headers = page.finish(await repo.list_rows(db, ctx.project.id, asset_id, page))
        width = len(FIELDS.columns)
        tz = ctx.project.timezone
        return [_view(FIELDS.row(row), row[width], row[width + 1], tz) for row in rows], headers

    async def require(
        self, db: AsyncSession, ctx: ProjectContext, schedule_id: str, *, lock: bool = False
    ) -> MaintenanceSchedule:
        """A schedule of the caller's project, else 404."""
        return found(await repo.get(db, ctx.project.id, schedule_id, lock=lock), ScheduleNotFound())

    async def get(self, db: AsyncSession, ctx: ProjectContext, schedule_id: str) -> dict[str, Any]:
        """One schedule of the project (404 otherwise)."""
        return read(await self.require(db, ctx, schedule_id), ctx)

    async def _asset(self, db: AsyncSession, ctx: ProjectContext, asset_id: str) -> Asset:
        asset = await assets.get(db, ctx.project.id, asset_id)
        if asset is None:
            raise references.refused(ASSET, "assetId")
        return asset

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, body: MaintenanceScheduleCreate
    ) -> dict[str, Any]:
        """A schedule of a live asset of the project, first due at ``nextDueAt`` (else now),
        anchored on that day; a meter schedule starts from the meter's last reading."""
        asset = await self._asset(db, ctx, body.asset_id)
        baseline = _baseline(asset, body.meter_type) if body.meter_type else None
        await references.require_assignee(db, ctx, body.assignee_id)
        first = body.next_due_at or clock.now()
        schedule = await add_record(
            db,
            ctx,
            MaintenanceSchedule,
            asset_id=asset.id,
            title=body.title,
            description=body.description,
            frequency=body.frequency,
            interval_days=body.interval_days,
            basis=body.basis,
            anchor_day=recurrence.local_day(first, recurrence.zone(ctx.project.timezone)).day,
            next_due_at=first,
            assignee_id=body.assignee_id,
            priority=body.priority,
            meter_type=body.meter_type,
            meter_interval=_decimal(body.meter_interval),
            meter_threshold=_decimal(body.meter_threshold),
            meter_baseline=baseline,
            checklist=checklist([item.model_dump() for item in body.checklist]),
            is_active=body.is_active,
        )
        changes = created(audited(schedule))
        await audit_change(db, ctx, (ENTITY, schedule.id), "maintenance_schedule.created", changes)
        return read(schedule, ctx)

    async def update(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        schedule_id: str,
        body: MaintenanceScheduleUpdate,
    ) -> dict[str, Any]:
        """Only the fields sent change. A new frequency other than CUSTOM drops
        ``intervalDays``; a changed meter condition takes the meter's reading now as its
        baseline and clears a met condition; a new ``nextDueAt`` re-anchors the calendar."""
        schedule = await self.require(db, ctx, schedule_id, lock=True)
        changes = body.sent()
        merged = {
            key: changes.get(key, getattr(schedule, key))
            for key in ("frequency", "interval_days", *METER_KEYS)
        }
        if merged["frequency"] != "CUSTOM" and "frequency" in changes:
            merged["interval_days"] = changes["interval_days"] = changes.get("interval_days")
        try:
            check(*(merged[key] for key in merged))
        except ValueError as error:
            raise InvalidField("body", str(error)) from None
        if changes.get("assignee_id") not in (None, schedule.assignee_id):
            await references.require_assignee(db, ctx, changes["assignee_id"])
        if any(key in changes for key in METER_KEYS):
            for key in ("meter_interval", "meter_threshold"):
                if key in changes:
                    changes[key] = _decimal(changes[key])
            if merged["meter_type"] is not None:
                asset = await self._asset(db, ctx, schedule.asset_id)
                changes["meter_baseline"] = _baseline(asset, merged["meter_type"])
            else:
                changes["meter_baseline"] = None
            changes["meter_due_at"] = None
        if "next_due_at" in changes:
            tz = recurrence.zone(ctx.project.timezone)
            changes["anchor_day"] = recurrence.local_day(changes["next_due_at"], tz).day
        if "checklist" in changes:
            changes["checklist"] = checklist(changes["checklist"])
        before = audited(schedule)
        for column, value in changes.items():
            setattr(schedule, column, value)
        action = "maintenance_schedule.updated"
        await audit_update(db, ctx, (ENTITY, schedule), action, before, audited(schedule))
        return read(schedule, ctx)

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


maintenance = MaintenanceService()
