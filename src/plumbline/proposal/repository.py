"""Every proposal query: always within one project, never deleted proposals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.pagination import PageParams
from plumbline.models import Proposal
from plumbline.records.fields import Fields
from plumbline.records.visibility import Visibility

# The response, in order; the amounts are formatted by the service (Decimal -> "0.00").
FIELDS = Fields(
    Proposal.__table__,
    {
        "id": "id",
        "projectId": "project_id",
        "reference": "reference",
        "title": "title",
        "status": "status",
        "clientName": "client_name",
        "clientEmail": "client_email",
        "clientCompany": "client_company",
        "validUntil": "valid_until",
        "currency": "currency",
        "coverLetter": "cover_letter",
        "items": "items",
        "subtotal": "subtotal",
        "workPricePercent": "work_price_percent",
        "workAmount": "work_amount",
        "taxPercent": "tax_percent",
        "taxAmount": "tax_amount",
        "discount": "discount",
        "total": "total",
        "sentAt": "sent_at",
        "viewedAt": "viewed_at",
        "acceptedAt": "accepted_at",
        "signerName": "signer_name",
        "declinedAt": "declined_at",
        "declineReason": "decline_reason",
        "declineComment": "decline_comment",
        "changeRequestComment": "change_request_comment",
        "createdBy": "created_by",
        "createdAt": "created_at",
        "updatedAt": "updated_at",
    },
)


async def list_rows(db: AsyncSession, vis: Visibility, page: PageParams) -> Sequence[Row[Any]]:
    query = select(*FIELDS.columns).where(*vis.where(Proposal))
    return (await db.execute(page.apply(query, Proposal.id))).all()


async def get(db: AsyncSession, vis: Visibility, proposal_id: str) -> Proposal | None:
    query = select(Proposal).where(Proposal.id == proposal_id, *vis.where(Proposal))
    proposal: Proposal | None = (await db.execute(query)).scalar_one_or_none()
    return proposal
