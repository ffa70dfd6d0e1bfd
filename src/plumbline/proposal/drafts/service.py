"""Proposal rules (PRODUCT §8): create, read, edit, delete, the list, its figures, PDF, preview.

The per-project reference PROP-{year}-{seq}; edits only in DRAFT and CHANGES_REQUESTED; a
MEMBER deletes only their own drafts."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.errors import Forbidden, InvalidField
from plumbline.kit import clock, money
from plumbline.kit.pagination import PageParams
from plumbline.kit.sequence import next_number
from plumbline.material.service import material_items
from plumbline.models import Proposal
from plumbline.proposal.auth import load, visibility
from plumbline.proposal.document import letter, pdf
from plumbline.proposal.drafts import repository as repo
from plumbline.proposal.drafts.pricing import AUDITED, COLUMNS, PRICED, apply
from plumbline.proposal.drafts.schemas import ProposalCreate, ProposalFilters, ProposalUpdate
from plumbline.proposal.errors import ProposalNotEditable, ProposalsInternal
from plumbline.proposal.read import ENTITY, FIELDS, row_read, to_read
from plumbline.proposal.status import DRAFT, EDITABLE
from plumbline.proposal.templates import repository as template_repo
from plumbline.records import add_record, soft_delete

# How long a draft created without ``validUntil`` (nor a template's validDays) is valid.
DEFAULT_VALID_DAYS = 30


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
        raise InvalidField("templateId", "no such proposal template", error="Validation failed")
    if not data.cover_letter:
        values["cover_letter"] = template.body
    if "tax_percent" not in data.model_fields_set and template.tax_percent is not None:
        values["tax_percent"] = template.tax_percent
    if data.valid_until is None and template.valid_days is not None:
        values["valid_until"] = valid_for(ctx, template.valid_days)


def valid_for(ctx: ProjectContext, days: int) -> datetime:
    """The end (23:59:59) of the day ``days`` after today, both on the project's clock (its time
    zone; UTC when it names none we know)."""
    try:
        zone = ZoneInfo(ctx.project.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    last_day = clock.now().astimezone(zone).date() + timedelta(days=days)
    return datetime.combine(last_day, time(23, 59, 59), zone).astimezone(UTC)


class ProposalService:
    async def list_proposals(
        self, db: AsyncSession, ctx: ProjectContext, filters: ProposalFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's proposals, newest first, each with the status a read shows;
        external collaborators are refused (403)."""
        vis = visibility(ctx).collection(ProposalsInternal)
        found, headers = page.finish(await repo.list_rows(db, vis, filters, page, clock.now()))
        now = str(clock.iso(clock.now()))
        return [row_read(row, now) for row in found], headers

    async def summary(self, db: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
        """The analytics figures of the project's proposals (one aggregate query)."""
        vis = visibility(ctx).collection(ProposalsInternal)
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

    async def get(self, db: AsyncSession, ctx: ProjectContext, proposal_id: str) -> dict[str, Any]:
        """One proposal the caller sees (404 for anyone else, external collaborators too)."""
        return to_read(FIELDS.of(await load(db, ctx, proposal_id)))

    async def pdf(
        self, db: AsyncSession, ctx: ProjectContext, proposal_id: str
    ) -> tuple[bytes, str]:
        """The proposal's PDF and its file name (rendered in a worker thread: about a second of
        CPU for a font-embedding document, which would stall every other request)."""
        body = await self.get(db, ctx, proposal_id)
        # The client's signature, drawn in the acceptance block (proposal portal's accept).
        signature = await repo.signature(db, body["id"]) if body["acceptedAt"] else None
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
        """A DRAFT priced from its items, with the project's currency and the next reference;
        a template fills the letter, tax and validity the request leaves out, and without
        either the draft is valid for ``DEFAULT_VALID_DAYS``."""
        data.items = await material_items(db, ctx.workspace.id, data.items)
        values = {name: getattr(data, name) for name in COLUMNS}
        if data.template_id is not None:
            await _from_template(db, ctx, data.template_id, data, values)
        if values["valid_until"] is None:
            values["valid_until"] = valid_for(ctx, DEFAULT_VALID_DAYS)
        # Priced before the number is taken: refused input uses no reference.
        draft = Proposal(items=[])
        apply(draft, values)
        number = await next_number(db, ctx.project.id, ENTITY)
        proposal = await add_record(
            db,
            ctx,
            Proposal,
            status=DRAFT,
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
        """The fields sent, repriced, only in DRAFT or CHANGES_REQUESTED (409 otherwise);
        audited when something changed."""
        proposal = await load(db, ctx, proposal_id)
        if proposal.status not in EDITABLE:
            raise ProposalNotEditable()
        given = data.model_fields_set
        if data.items:
            data.items = await material_items(db, ctx.workspace.id, data.items)
        before = FIELDS.audited(proposal, AUDITED)
        apply(proposal, {name: getattr(data, name) for name in COLUMNS if name in given})
        after = FIELDS.audited(proposal, AUDITED)
        await audit_update(db, ctx, (ENTITY, proposal), "proposal.updated", before, after)
        return to_read(FIELDS.of(proposal))

    async def delete(self, db: AsyncSession, ctx: ProjectContext, proposal_id: str) -> None:
        """Soft delete: a MEMBER only their own drafts, those who may delete any record any
        proposal."""
        proposal = await load(db, ctx, proposal_id)
        refusal = "You can delete only the draft proposals you created"
        if proposal.status != DRAFT and not ctx.can(Permission.RECORDS_DELETE_ANY):
            raise Forbidden(refusal)
        await soft_delete(
            db, ctx, proposal, entity_type=ENTITY, action="proposal.deleted", refusal=refusal
        )


proposal = ProposalService()
