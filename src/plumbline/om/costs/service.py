"""Work-order cost rules: parts used (from stock through the ledger, or bought for the job),
labour (entries, or a person's running timer, at their workspace rate unless given) and other
lines; totals in exact decimals (PRODUCT §1 Money), kept when a work order is reopened.

Access (om/auth.py): whoever works on work orders records and deletes cost lines; MANAGER+
sets labour rates."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.project import ProjectContext
from plumbline.errors import Conflict, InvalidField, NotFound, found
from plumbline.events.readers import reader
from plumbline.issue.access import visibility
from plumbline.kit import clock, money
from plumbline.kit.ids import new_id
from plumbline.kit.money import number_text
from plumbline.kit.pagination import PageParams
from plumbline.models import Issue, WorkOrderCost
from plumbline.om.costs import repository as repo
from plumbline.om.costs.overlap import own_time
from plumbline.om.costs.repository import FIELDS
from plumbline.om.costs.schemas import (
    CostFilters,
    LabourCreate,
    OtherCreate,
    PartUse,
    TimerStart,
)
from plumbline.om.parts.service import counted, stock
from plumbline.records.repository import assignable, rows_by_id

ENTITY = "work_order_cost"
NUMBERS = ("quantity", "unitCost", "hourlyRate")
HOUR = Decimal(3600)
DAY = timedelta(hours=24)


class WorkOrderNotFound(NotFound, message="Work order not found"): ...


class CostNotFound(NotFound, message="Cost line not found"): ...


class TimerRunning(Conflict, code="TIMER_RUNNING", message="You already have a running timer"): ...


class NoTimer(Conflict, message="You have no running timer on this work order"): ...


def view(values: dict[str, Any]) -> dict[str, Any]:
    for name in NUMBERS:
        if values[name] is not None:
            values[name] = number_text(Decimal(values[name]))
    values["amount"] = money.text(Decimal(values["amount"]))
    return values


@reader(ENTITY)
async def costs_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row.id: view(FIELDS.row(row)) for row in await rows_by_id(db, FIELDS, ids)}


def totals(amounts: Sequence[tuple[str, Decimal]]) -> dict[str, str]:
    """The lines' amounts summed per kind and in all, exactly (each line is already cents)."""
    sums = {"PART": money.ZERO, "LABOUR": money.ZERO, "OTHER": money.ZERO}
    for kind, amount in amounts:
        sums[kind] += Decimal(amount)
    total = sum(sums.values(), money.ZERO)
    return {
        "parts": money.text(sums["PART"]),
        "labour": money.text(sums["LABOUR"]),
        "other": money.text(sums["OTHER"]),
        "total": money.text(total),
    }


def _amount(value: Decimal, field: str) -> Decimal:
    amount = money.cents(value)
    if amount > money.MAX_AMOUNT:
        raise InvalidField(field, "the amount is too large")
    return amount


def incurred(at: datetime | None) -> datetime:
    """When a cost was incurred: the time given (not in the future), else now."""
    now = clock.now()
    if at is not None and at > now:
        raise InvalidField("incurredAt", "cannot be in the future")
    return at or now


def labour_amount(seconds: Decimal, rate: Decimal) -> Decimal:
    """Hours times the hourly rate, rounded half up to cents once."""
    return money.cents(seconds / HOUR * rate)


class CostService:
    async def work_order(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, *, lock: bool = False
    ) -> Issue:
        """The work order as the caller sees it (404 otherwise); ``lock``: a write, which sums
        its totals again, waits for the one before (PostgreSQL; SQLite's writers queue)."""
        order = await repo.work_order(db, visibility(ctx), issue_id, lock=lock)
        return found(order, WorkOrderNotFound())

    async def _total(self, db: AsyncSession, ctx: ProjectContext, order: Issue) -> None:
        """The work order's ``costs``, summed again from its lines; a change is an update of
        the issue (audited, its ``updatedAt`` and entity tag move, an ``issue.updated`` event)."""
        before = order.costs
        order.costs = totals(await repo.amounts(db, order.id))
        await audit_update(
            db, ctx, ("issue", order), "issue.updated", {"costs": before}, {"costs": order.costs}
        )

    async def costs(self, db: AsyncSession, ctx: ProjectContext, issue_id: str) -> dict[str, Any]:
        """The work order's cost lines, oldest first, and their totals."""
        order = await self.work_order(db, ctx, issue_id)
        return {
            "workOrderId": order.id,
            "assetId": order.asset_id,
            "currency": ctx.project.currency,
            "totals": order.costs,
            "lines": [view(FIELDS.row(row)) for row in await repo.lines(db, order.id)],
        }

    async def list_costs(
        self, db: AsyncSession, ctx: ProjectContext, filters: CostFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_rows(db, ctx.project.id, filters, page))
        return [view(FIELDS.row(row)) for row in rows], headers

    async def _add(
        self, db: AsyncSession, ctx: ProjectContext, order: Issue, **values: Any
    ) -> WorkOrderCost:
        now = clock.now()
        line = WorkOrderCost(
            id=new_id(),
            project_id=ctx.project.id,
            workspace_id=ctx.workspace.id,
            work_order_id=order.id,
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
            **{"incurred_at": now, "running": False} | values,
        )
        db.add(line)
        await db.flush()
        return line

    async def _audit(
        self, db: AsyncSession, ctx: ProjectContext, order: Issue | None, line: WorkOrderCost
    ) -> dict[str, Any]:
        """The new line audited, and the ``order``'s totals summed again (None: a timer
        started, which costs nothing yet)."""
        answer = view(FIELDS.read(FIELDS.of(line)))
        changes = {k: answer[k] for k in ("workOrderId", "kind", "amount")}
        await audit_change(db, ctx, (ENTITY, line.id), f"{ENTITY}.created", created(changes))
        if order is not None:
            await self._total(db, ctx, order)
        return answer

    async def use_part(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: PartUse
    ) -> dict[str, Any]:
        """A part used. From stock: the ledger takes it from the location (409 naming the part
        and what is available when it has too little; nothing written)."""
        order = await self.work_order(db, ctx, issue_id, lock=True)
        part = await stock.part(db, ctx, body.part_id, "partId") if body.part_id else None
        if body.location_id is not None:
            if part is None:
                raise InvalidField("partId", "a part taken from stock names the part")
            await stock.location(db, ctx, body.location_id, "locationId")
        elif part is None and (body.description is None or body.unit_cost is None):
            raise InvalidField(
                "unitCost", "a part bought for the job gives its description and unit cost"
            )
        quantity = counted(part, body.quantity, "quantity") if part else body.quantity
        if quantity <= 0:
            raise InvalidField("quantity", "must be greater than zero")
        unit_cost = body.unit_cost if body.unit_cost is not None else part.unit_cost  # type: ignore[union-attr]
        line = await self._add(
            db,
            ctx,
            order,
            kind="PART",
            part_id=part.id if part else None,
            location_id=body.location_id,
            description=body.description or (part.name if part else None),
            quantity=quantity,
            unit_cost=unit_cost,
            amount=_amount(quantity * unit_cost, "quantity"),
            incurred_at=incurred(body.incurred_at),
        )
        if part is not None and body.location_id is not None:
            await stock.move(
                db,
                ctx,
                part,
                body.location_id,
                -quantity,
                "CONSUMPTION",
                unit_cost=unit_cost,
                work_order_id=order.id,
                cost_id=line.id,
            )
        return await self._audit(db, ctx, order, line)

    async def _person(self, db: AsyncSession, ctx: ProjectContext, user_id: str | None) -> str:
        """Who worked: the caller by default, else someone who may work on the project. The
        person's labour writes in the workspace take turns from here on (PostgreSQL: a lock
        held until the transaction ends), so two concurrent ones cannot both pass
        ``overlap.own_time``."""
        if user_id is None:
            if ctx.user_id is None:
                raise InvalidField("userId", "an API key logs labour for a named person")
            user_id = ctx.user_id
        elif user_id not in await assignable(db, ctx, [user_id]):
            raise InvalidField("userId", "must be someone who can work on this project")
        await repo.lock_person(db, ctx.workspace.id, user_id)
        return user_id

    async def _rate(
        self, db: AsyncSession, ctx: ProjectContext, user_id: str, given: Decimal | None
    ) -> Decimal:
        if given is not None:
            return given
        rate = await repo.rate(db, ctx.workspace.id, user_id)
        if rate is None:
            raise InvalidField("hourlyRate", "this person has no labour rate: give one")
        return Decimal(rate.hourly_rate)

    async def log_labour(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: LabourCreate
    ) -> dict[str, Any]:
        """A labour entry from start and end (ending after it starts, within 24 h) or minutes."""
        order = await self.work_order(db, ctx, issue_id, lock=True)
        started, ended = body.started_at, body.ended_at
        if (started is None) != (ended is None):
            raise InvalidField("endedAt", "give both startedAt and endedAt, or minutes")
        if started is not None and ended is not None:
            if body.minutes is not None:
                raise InvalidField("minutes", "give minutes or startedAt and endedAt, not both")
            if ended <= started:
                raise InvalidField("endedAt", "must be after startedAt")
            if ended - started > DAY:
                raise InvalidField("endedAt", "a labour entry is at most 24 hours")
            seconds = Decimal((ended - started).total_seconds())
        elif body.minutes is not None:
            seconds = Decimal(body.minutes * 60)
        else:
            raise InvalidField("minutes", "give minutes or startedAt and endedAt")
        user_id = await self._person(db, ctx, body.user_id)
        rate = await self._rate(db, ctx, user_id, body.hourly_rate)
        if started is not None:
            await own_time(db, ctx, user_id, started, ended)
        line = await self._add(
            db,
            ctx,
            order,
            kind="LABOUR",
            user_id=user_id,
            started_at=started,
            ended_at=ended,
            minutes=int((seconds / 60).to_integral_value()),
            hourly_rate=rate,
            description=body.description,
            amount=_amount(labour_amount(seconds, rate), "hourlyRate"),
            incurred_at=started or incurred(body.incurred_at),
        )
        return await self._audit(db, ctx, order, line)

    async def start_timer(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: TimerStart
    ) -> dict[str, Any]:
        """The caller's running timer on the work order; one at a time per person, and not
        over the time of an entry of theirs (409)."""
        order = await self.work_order(db, ctx, issue_id)
        user_id = await self._person(db, ctx, None)
        if await repo.running(db, user_id) is not None:
            raise TimerRunning()
        rate = await self._rate(db, ctx, user_id, body.hourly_rate)
        now = clock.now()
        await own_time(db, ctx, user_id, now, None)
        line = await self._add(
            db,
            ctx,
            order,
            kind="LABOUR",
            user_id=user_id,
            started_at=now,
            hourly_rate=rate,
            description=body.description,
            running=True,
            amount=money.ZERO,
        )
        return await self._audit(db, ctx, None, line)

    async def stop_timer(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str
    ) -> dict[str, Any]:
        """Stop the caller's timer on the work order: its time becomes a labour entry (409
        when none runs here, when it ran past 24 h: delete it and log the time by hand, or when
        its time overlaps an entry of theirs)."""
        order = await self.work_order(db, ctx, issue_id, lock=True)
        user_id = await self._person(db, ctx, None)
        line = await repo.running(db, user_id)
        if line is None or line.work_order_id != order.id:
            raise NoTimer()
        now = clock.now()
        started: datetime = line.started_at  # type: ignore[assignment]
        if now - started > DAY:
            raise Conflict(
                "This timer ran longer than 24 hours: delete it and log the time by hand",
                code="TIMER_TOO_LONG",
            )
        await own_time(db, ctx, user_id, started, now, entry_id=line.id)
        seconds = Decimal(max((now - started).total_seconds(), 0))
        before = view(FIELDS.read(FIELDS.of(line)))
        line.running = False
        line.ended_at = now
        line.minutes = int((seconds / 60).to_integral_value())
        line.amount = _amount(labour_amount(seconds, Decimal(line.hourly_rate or 0)), "hourlyRate")
        line.updated_at = now
        await db.flush()
        after = view(FIELDS.read(FIELDS.of(line)))
        changes = {k: [before[k], after[k]] for k in ("running", "endedAt", "minutes", "amount")}
        await audit_change(db, ctx, (ENTITY, line.id), f"{ENTITY}.updated", changes)
        await self._total(db, ctx, order)
        return after

    async def add_other(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: OtherCreate
    ) -> dict[str, Any]:
        order = await self.work_order(db, ctx, issue_id, lock=True)
        line = await self._add(
            db,
            ctx,
            order,
            kind="OTHER",
            category=body.category,
            description=body.description,
            amount=body.amount,
            incurred_at=incurred(body.incurred_at),
        )
        return await self._audit(db, ctx, order, line)

    async def delete(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, cost_id: str
    ) -> None:
        """Delete a cost line; a part taken from stock goes back to its location (a RETURN in
        the ledger)."""
        order = await self.work_order(db, ctx, issue_id, lock=True)
        line = found(await repo.get(db, order.id, cost_id), CostNotFound())
        if line.kind == "PART" and line.part_id and line.location_id:
            part = await stock.part(db, ctx, line.part_id, "partId")
            await stock.move(
                db,
                ctx,
                part,
                line.location_id,
                Decimal(line.quantity or 0),
                "RETURN",
                unit_cost=line.unit_cost,
                work_order_id=order.id,
                cost_id=line.id,
            )
        await repo.remove(db, line.id)
        await audit_change(
            db,
            ctx,
            (ENTITY, line.id),
            f"{ENTITY}.deleted",
            {"amount": [money.text(line.amount), None]},
        )
        await self._total(db, ctx, order)


costs = CostService()
