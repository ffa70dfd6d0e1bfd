"""Proposal rules: the exact totals, the per-project reference, who may read, edit and delete.

Access: internal members and API keys read and write; external collaborators (clients included)
see no proposals here (403 on the list, 404 on one): clients answer them through the portal.
Edits only in DRAFT and CHANGES_REQUESTED; a MEMBER deletes only their own drafts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created, diff
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.errors import Forbidden, NotFound, ValidationFailed
from plumbline.kit import clock, money
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.kit.sequence import next_number
from plumbline.material.service import material_items
from plumbline.models import Proposal
from plumbline.proposal import flow_repository as flow_repo
from plumbline.proposal import letter, pdf
from plumbline.proposal import repository as repo
from plumbline.proposal import template_repository as template_repo
from plumbline.proposal.errors import ProposalNotEditable, ProposalsInternal
from plumbline.proposal.filters import ProposalFilters
from plumbline.proposal.repository import FIELDS
from plumbline.proposal.schemas import ItemIn, ProposalCreate, ProposalUpdate
from plumbline.records import add_record, soft_delete
from plumbline.records.visibility import Visibility

ENTITY = "proposal"
EDITABLE_STATUSES = ("DRAFT", "CHANGES_REQUESTED")
# What a create or update writes, and the audit log compares.
EDITABLE = (
    "title",
    "validUntil",
    "clientName",
    "clientEmail",
    "clientCompany",
    "coverLetter",
    "items",
    "workPricePercent",
    "taxPercent",
    "discount",
)
AUDITED = (*EDITABLE, "subtotal", "workAmount", "taxAmount", "total")
MONEY = ("subtotal", "workAmount", "taxAmount", "discount", "total")
PERCENT = ("workPricePercent", "taxPercent")
FOUR = Decimal("0.0001")


def number_text(value: Decimal) -> str:
    """A quantity, rate or percentage as a plain decimal string, at least two places."""
    text = format(value.quantize(FOUR).normalize(), "f")
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction.ljust(2, '0')}"


# Sent and unanswered: these show EXPIRED once ``validUntil`` has passed.
LIVE_STATUSES = ("SENT", "VIEWED")


def shown_status(status: str, valid_until: str, now: str) -> str:
    """The status a read shows: EXPIRED as soon as a live proposal's ``validUntil`` passed,
    before the reminders run marks it (both ISO 8601 ``...Z`` strings, compared as text)."""
    return "EXPIRED" if status in LIVE_STATUSES and valid_until <= now else status


def _now() -> str:
    return str(clock.iso(clock.now()))


def to_read(values: Mapping[Any, Any], now: str | None = None) -> dict[str, Any]:
    body = FIELDS.read(values)
    body["status"] = shown_status(body["status"], body["validUntil"], now or _now())
    for name in MONEY:
        body[name] = money.text(Decimal(body[name]))
    for name in PERCENT:
        body[name] = number_text(Decimal(body[name]))
    return body


def _amount(value: Decimal, field: str) -> Decimal:
    """``value`` in cents; 400 naming ``field`` when it does not fit a money column."""
    value = money.cents(value)
    if value > money.MAX_AMOUNT:
        raise ValidationFailed(
            details=[{"field": field, "message": "amount beyond 12 integer digits"}]
        )
    return value


def priced(items: Sequence[ItemIn]) -> tuple[list[dict[str, Any]], Decimal]:
    """The items as stored (decimals as strings, each with its ``lineTotal``) and their sum."""
    stored, subtotal = [], Decimal(0)
    for index, item in enumerate(items):
        rate = item.rate if item.rate is not None else Decimal(0)  # set: see material_items
        line = _amount(item.quantity * rate, f"items.{index}.lineTotal")
        subtotal += line
        stored.append(
            {
                "id": item.id or new_id(),
                "name": item.name,
                "description": item.description,
                "quantity": number_text(item.quantity),
                "unit": item.unit,
                "rate": number_text(rate),
                "lineTotal": money.text(line),
                "materialId": item.material_id,
            }
        )
    return stored, _amount(subtotal, "items")


def totals(proposal: Proposal, subtotal: Decimal) -> None:
    """PRODUCT §8's math, rounded half up to cents at each step; the total never below zero."""
    work = _amount(subtotal * proposal.work_price_percent / 100, "workAmount")
    tax = _amount((subtotal + work) * proposal.tax_percent / 100, "taxAmount")
    total = _amount(subtotal + work + tax, "total") - proposal.discount
    proposal.subtotal, proposal.work_amount, proposal.tax_amount = subtotal, work, tax
    proposal.total = max(total, money.ZERO)


def _apply(proposal: Proposal, values: Mapping[str, Any]) -> None:
    """Set the edited columns and recompute the totals from the (new or kept) items."""
    if values.get("cover_letter"):
        letter.check(values["cover_letter"], "coverLetter")
    for name, value in values.items():
        if name in ("work_price_percent", "tax_percent"):
            value = value.quantize(FOUR)
        elif name == "discount":
            value = money.cents(value)
        setattr(proposal, name, value)
    if "items" in values:
        stored, subtotal = priced(values["items"])
        proposal.items = stored
    else:
        subtotal = sum((Decimal(item["lineTotal"]) for item in proposal.items), Decimal(0))
    totals(proposal, subtotal)


COLUMNS = FIELDS.columns_of(EDITABLE)
# What pricing writes: the edited columns and the totals computed from them.
PRICED = (*COLUMNS, "subtotal", "work_amount", "tax_amount", "total")


async def _from_template(
    db: AsyncSession,
    ctx: ProjectContext,
    template_id: str,
    data: ProposalCreate,
    values: dict[str, Any],
) -> None:
    """The template's letter, tax and validity where the request does not give its own; a
    template of another workspace is unknown here (400 naming ``templateId``)."""
    template = await template_repo.get(db, ctx.workspace.id, template_id)
    if template is None:
        raise ValidationFailed(
            details=[{"field": "templateId", "message": "no such proposal template"}]
        )
    if not data.cover_letter:
        values["cover_letter"] = template.body
    if "tax_percent" not in data.model_fields_set and template.tax_percent is not None:
        values["tax_percent"] = template.tax_percent
    if data.valid_until is None and template.valid_days is not None:
        last_day = clock.today() + timedelta(days=template.valid_days)
        values["valid_until"] = datetime.combine(last_day, time(23, 59, 59), UTC)


def _visibility(ctx: ProjectContext) -> Visibility:
    return Visibility(ctx.project.id, shared=not ctx.is_external, contributor=None)


class ProposalService:
    async def list_proposals(
        self, db: AsyncSession, ctx: ProjectContext, filters: ProposalFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        vis = _visibility(ctx).collection(ProposalsInternal)
        found, headers = page.finish(await repo.list_rows(db, vis, filters, page, clock.now()))
        now = _now()
        return [to_read(row._mapping, now) for row in found], headers

    async def summary(self, db: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
        """The analytics figures of the project's proposals (one aggregate query)."""
        vis = _visibility(ctx).collection(ProposalsInternal)
        row = await repo.summary(db, vis, clock.now())
        decided = int(row.accepted) + int(row.declined)
        days = row.average_days
        return {
            "total": int(row.total),
            "draft": int(row.draft),
            "sent": int(row.sent),
            "viewed": int(row.viewed),
            "accepted": int(row.accepted),
            "declined": int(row.declined),
            "expired": int(row.expired),
            "changesRequested": int(row.changes_requested),
            "pipelineValue": money.text(Decimal(int(row.pipeline_cents)) / 100),
            "acceptedValue": money.text(Decimal(int(row.accepted_cents)) / 100),
            "winRate": round(int(row.accepted) / decided, 4) if decided else None,
            "averageDaysToDecision": None if days is None else round(float(days), 1),
        }

    async def _load(self, db: AsyncSession, ctx: ProjectContext, proposal_id: str) -> Proposal:
        proposal = await repo.get(db, _visibility(ctx), proposal_id)
        if proposal is None:
            raise NotFound("Proposal not found")
        return proposal

    async def get(self, db: AsyncSession, ctx: ProjectContext, proposal_id: str) -> dict[str, Any]:
        return to_read(FIELDS.of(await self._load(db, ctx, proposal_id)))

    async def pdf(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str
    ) -> tuple[bytes, str]:
        """The proposal's PDF and its file name (rendered in a worker thread: about a second of
        CPU for a font-embedding document, which would stall every other request)."""
        body = await self.get(db, ctx, proposal_id)
        # The client's signature, drawn in the acceptance block (proposal portal's accept).
        signature = await flow_repo.signature(db, body["id"]) if body["acceptedAt"] else None
        document = await asyncio.to_thread(
            partial(
                pdf.render,
                body,
                project_name=ctx.project.name,
                company_name=ctx.workspace.name,
                signature=signature,
            )
        )
        return document, pdf.filename(body)

    async def preview(self, db: AsyncSession, ctx: ProjectContext, proposal_id: str) -> str:
        """The letter as an HTML page, its variables filled in and escaped."""
        body = await self.get(db, ctx, proposal_id)
        fragment = letter.render_html(
            body,
            project_name=ctx.project.name,
            company_name=ctx.workspace.name,
            today=clock.today(),
        )
        return letter.page(f"{body['reference']} {body['title']}", fragment)

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, data: ProposalCreate
    ) -> dict[str, Any]:
        _visibility(ctx).collection(ProposalsInternal)
        data.items = await material_items(db, ctx.workspace.id, data.items)
        values = {name: getattr(data, name) for name in COLUMNS}
        if data.template_id is not None:
            await _from_template(db, ctx, data.template_id, data, values)
        if values["valid_until"] is None:
            raise ValidationFailed(details=[{"field": "validUntil", "message": "Field required"}])
        # Priced before the number is taken: refused input uses no reference.
        draft = Proposal(items=[])
        _apply(draft, values)
        number = await next_number(db, ctx.project.id, ENTITY)
        proposal = await add_record(
            db,
            ctx,
            Proposal,
            status="DRAFT",
            currency=ctx.project.currency or "USD",
            reference=f"PROP-{clock.now().year}-{number:03}",
            **{name: getattr(draft, name) for name in PRICED},
        )
        changes = created(FIELDS.audited(proposal, AUDITED))
        await audit_change(db, ctx, (ENTITY, proposal.id), "proposal.created", changes)
        return to_read(FIELDS.of(proposal))

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str, data: ProposalUpdate
    ) -> dict[str, Any]:
        proposal = await self._load(db, ctx, proposal_id)
        if proposal.status not in EDITABLE_STATUSES:
            raise ProposalNotEditable()
        given = data.model_fields_set
        if data.items:
            data.items = await material_items(db, ctx.workspace.id, data.items)
        before = FIELDS.audited(proposal, AUDITED)
        _apply(proposal, {name: getattr(data, name) for name in COLUMNS if name in given})
        changes = diff(before, FIELDS.audited(proposal, AUDITED))
        if changes:
            proposal.updated_at = clock.now()
            await audit_change(db, ctx, (ENTITY, proposal.id), "proposal.updated", changes)
            await db.flush()
        return to_read(FIELDS.of(proposal))

    async def delete(self, db: AsyncSession, ctx: ProjectContext, proposal_id: str) -> None:
        proposal = await self._load(db, ctx, proposal_id)
        refusal = "You can delete only the draft proposals you created"
        if proposal.status != "DRAFT" and not ctx.can(Permission.RECORDS_DELETE_ANY):
            raise Forbidden(refusal)
        await soft_delete(
            db, ctx, proposal, entity_type=ENTITY, action="proposal.deleted", refusal=refusal
        )


proposal = ProposalService()
