"""Asset downtime and reliability (definitions with a worked example: docs/maintenance-cost.md).

An asset is OFFLINE during its downtime intervals and ONLINE at every other time. Over a window
[from, to) (``to`` at most now):

- ``downtimeHours``: the hours of every interval inside the window (planned or not);
- ``failures``: unplanned intervals that began inside the window;
- ``mttrHours``: the hours inside the window of those failures, divided by their number;
- ``mtbfHours``: the hours the asset was up in the window, divided by the failures;
- ``availability``: up hours over the window's hours (planned downtime counts as down).

Access (om/auth.py): whoever works on work orders reads and records downtime; MANAGER+
deletes an interval."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.project import ProjectContext
from plumbline.errors import Conflict, InvalidField, NotFound, found
from plumbline.events.readers import reader
from plumbline.issue.access import visibility
from plumbline.issue.hooks import Done
from plumbline.issue.schemas import COSTED
from plumbline.kit import clock, money
from plumbline.kit.export import csv_cell
from plumbline.models import Downtime
from plumbline.om.assets.service import asset_service
from plumbline.om.costs import repository as costs_repo
from plumbline.om.reliability import repository as repo
from plumbline.om.reliability.repository import FIELDS
from plumbline.om.reliability.schemas import DowntimeCreate, DowntimeUpdate, Window
from plumbline.records import add_record, references, soft_delete
from plumbline.records.repository import rows_by_id

ENTITY = "downtime"
AUDITED = ("startedAt", "endedAt", "planned", "reason", "workOrderId")
DEFAULT_WINDOW = timedelta(days=30)
HOUR = Decimal(3600)
REPORT_HEADER = (
    "Asset tag",
    "Asset",
    "From",
    "To",
    "Downtime hours",
    "Planned downtime hours",
    "Availability",
    "Failures",
    "MTTR hours",
    "MTBF hours",
    "Parts",
    "Labour",
    "Other",
    "Total cost",
)


class DowntimeNotFound(NotFound, message="Downtime interval not found"): ...


class Overlaps(Conflict, code="DOWNTIME_OVERLAP"):
    def __init__(self, other: str, field: str) -> None:
        super().__init__(
            "This interval overlaps another of the asset's downtime intervals",
            field=field,
            overlapsId=other,
        )


def view(values: dict[str, Any]) -> dict[str, Any]:
    values["status"] = "OFFLINE" if values["endedAt"] is None else "ONLINE"
    return values


@reader(ENTITY)
async def downtime_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row.id: view(FIELDS.row(row)) for row in await rows_by_id(db, FIELDS, ids)}


def _hours(seconds: Decimal) -> float:
    return float((seconds / HOUR).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def figures(
    intervals: Sequence[tuple[bool, datetime, datetime | None]], start: datetime, end: datetime
) -> dict[str, Any]:
    """The reliability figures of one asset's intervals (planned, started, ended) over
    [start, end); an open interval runs to ``end``."""
    period = Decimal((end - start).total_seconds())
    down = planned = unplanned = repairs = Decimal(0)
    failures = 0
    for is_planned, began, ended in intervals:
        inside = Decimal(max((min(ended or end, end) - max(began, start)).total_seconds(), 0))
        down += inside
        if is_planned:
            planned += inside
        else:
            unplanned += inside
            if began >= start:
                failures += 1
                repairs += inside
    up = period - down
    availability = (up / period).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    return {
        "periodHours": _hours(period),
        "downtimeHours": _hours(down),
        "plannedDowntimeHours": _hours(planned),
        "unplannedDowntimeHours": _hours(unplanned),
        "availability": float(availability),
        "failures": failures,
        "mttrHours": _hours(repairs / failures) if failures else None,
        "mtbfHours": _hours(up / failures) if failures else None,
    }


def _cost(sums: dict[str, Decimal]) -> dict[str, str]:
    parts, labour, other = (sums.get(kind, money.ZERO) for kind in ("PART", "LABOUR", "OTHER"))
    return {
        "parts": money.text(parts),
        "labour": money.text(labour),
        "other": money.text(other),
        "total": money.text(parts + labour + other),
    }


def _window(given: Window) -> tuple[datetime, datetime]:
    """The window asked for, ``to`` cut at now; by default the 30 days to the start of the
    current hour (so the report, and its ETag, stay the same within the hour)."""
    now = clock.now()
    end = min(given.end, now) if given.end else now.replace(minute=0, second=0, microsecond=0)
    start = given.start or end - DEFAULT_WINDOW
    if start >= end:
        raise InvalidField("from", "must be before to (and before now)")
    return start, end


class DowntimeService:
    async def list_downtime(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str, page: Any
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        asset = await asset_service.require(db, ctx, asset_id)
        rows, headers = page.finish(await repo.list_rows(db, ctx.project.id, asset.id, page))
        return [view(FIELDS.row(row)) for row in rows], headers

    async def _check(
        self,
        db: AsyncSession,
        asset_id: str,
        start: datetime,
        end: datetime | None,
        own: str | None,
    ) -> None:
        now = clock.now()
        if start > now:
            raise InvalidField("startedAt", "cannot be in the future")
        if end is not None and end > now:
            raise InvalidField("endedAt", "cannot be in the future")
        if end is not None and end <= start:
            raise InvalidField("endedAt", "must be after startedAt")
        other = await repo.overlapping(db, asset_id, start, end, own)
        if other is not None:
            raise Overlaps(other, "startedAt")

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str, body: DowntimeCreate
    ) -> dict[str, Any]:
        """Record the asset OFFLINE over an interval sharing no time with another (409)."""
        asset = await asset_service.require(db, ctx, asset_id, lock=True)
        if body.work_order_id is not None:
            order = await costs_repo.work_order(db, visibility(ctx), body.work_order_id)
            if order is None:
                raise references.refused(references.ISSUE, "workOrderId")
            if order.asset_id not in (None, asset.id):
                raise InvalidField("workOrderId", "the work order is about another asset")
        start = body.started_at or clock.now()
        await self._check(db, asset.id, start, body.ended_at, None)
        interval = await add_record(
            db,
            ctx,
            Downtime,
            asset_id=asset.id,
            planned=body.planned,
            reason=body.reason,
            started_at=start,
            ended_at=body.ended_at,
            work_order_id=body.work_order_id,
        )
        answer = view(FIELDS.read(FIELDS.of(interval)))
        changes = created({name: answer[name] for name in AUDITED})
        await audit_change(db, ctx, (ENTITY, interval.id), f"{ENTITY}.created", changes)
        return answer

    async def update(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        asset_id: str,
        downtime_id: str,
        body: DowntimeUpdate,
    ) -> dict[str, Any]:
        """Close (``endedAt``) or correct an interval; still sharing no time with another."""
        asset = await asset_service.require(db, ctx, asset_id, lock=True)
        interval = found(
            await repo.get(db, ctx.project.id, asset.id, downtime_id), DowntimeNotFound()
        )
        changes = body.sent()
        start = changes.get("started_at", interval.started_at)
        end = changes.get("ended_at", interval.ended_at)
        await self._check(db, asset.id, start, end, interval.id)
        before = {name: getattr(interval, FIELDS.names[name] or name) for name in AUDITED}
        for column, value in changes.items():
            setattr(interval, column, value)
        after = {name: getattr(interval, FIELDS.names[name] or name) for name in AUDITED}
        await audit_update(db, ctx, (ENTITY, interval), f"{ENTITY}.updated", before, after)
        return view(FIELDS.read(FIELDS.of(interval)))

    async def delete(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str, downtime_id: str
    ) -> None:
        asset = await asset_service.require(db, ctx, asset_id)
        interval = found(
            await repo.get(db, ctx.project.id, asset.id, downtime_id), DowntimeNotFound()
        )
        await soft_delete(
            db,
            ctx,
            interval,
            entity_type=ENTITY,
            action=f"{ENTITY}.deleted",
            refusal="Only managers delete downtime",
        )

    async def work_order_done(self, event: Done) -> None:
        """A work order resolved or closed brings up the asset it took down."""
        db, ctx, order = event.db, event.ctx, event.issue
        if order.issue_kind not in COSTED:
            return
        now = clock.now()
        for interval in await repo.open_for_work_order(db, order.id):
            interval.ended_at = now
            interval.updated_at = now
            await audit_change(
                db,
                ctx,
                (ENTITY, interval.id),
                f"{ENTITY}.updated",
                {"endedAt": [None, clock.iso(now)]},
            )
        await db.flush()

    async def report(
        self, db: AsyncSession, ctx: ProjectContext, given: Window, asset_id: str | None = None
    ) -> list[dict[str, Any]]:
        """One row per live asset (or the one asked for): three statements whatever the
        number of assets, intervals and work orders."""
        start, end = _window(given)
        assets = await repo.assets(db, ctx.project.id, asset_id)
        spans: dict[str, list[tuple[bool, datetime, datetime | None]]] = defaultdict(list)
        for asset, planned, began, ended in await repo.intervals(
            db, ctx.project.id, asset_id, start, end
        ):
            spans[asset].append((planned, began, ended))
        sums: dict[str, dict[str, Decimal]] = defaultdict(dict)
        for asset, kind, total in await repo.costs(db, ctx.project.id, asset_id, start, end):
            sums[asset][kind] = Decimal(total)
        return [
            {
                "assetId": asset,
                "tag": tag,
                "name": name,
                "from": clock.iso(start),
                "to": clock.iso(end),
                **figures(spans[asset], start, end),
                "cost": _cost(sums[asset]),
            }
            for asset, tag, name in assets
        ]

    async def project_report(
        self, db: AsyncSession, ctx: ProjectContext, given: Window
    ) -> dict[str, Any]:
        start, end = _window(given)
        rows = await self.report(db, ctx, Window(start, end))
        return {
            "from": clock.iso(start),
            "to": clock.iso(end),
            "currency": ctx.project.currency,
            "assets": rows,
        }

    async def asset_report(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str, given: Window
    ) -> dict[str, Any]:
        rows = await self.report(db, ctx, given, asset_id)
        if not rows:
            raise NotFound("Asset not found")
        return rows[0]

    @staticmethod
    def csv_lines(rows: Sequence[dict[str, Any]]) -> list[list[Any]]:
        return [
            [
                csv_cell(value)
                for value in (
                    row["tag"],
                    row["name"],
                    row["from"],
                    row["to"],
                    row["downtimeHours"],
                    row["plannedDowntimeHours"],
                    row["availability"],
                    row["failures"],
                    row["mttrHours"],
                    row["mtbfHours"],
                    row["cost"]["parts"],
                    row["cost"]["labour"],
                    row["cost"]["other"],
                    row["cost"]["total"],
                )
            ]
            for row in rows
        ]


downtime = DowntimeService()
