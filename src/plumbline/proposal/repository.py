"""Every proposal query: always within one project, never deleted proposals."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, Row, case, cast, extract, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.pagination import PageParams
from plumbline.models import Proposal
from plumbline.proposal.filters import ProposalFilters
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


def awaiting(now: datetime) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """SENT and VIEWED proposals still open at ``now``, and those whose ``validUntil`` has
    passed, which every read shows as EXPIRED (``service.shown_status``)."""
    sent = Proposal.status.in_(("SENT", "VIEWED"))
    return sent & (Proposal.valid_until > now), sent & (Proposal.valid_until <= now)


def shown_status_in(statuses: Sequence[str], now: datetime) -> ColumnElement[bool]:
    """The proposals whose status as shown at ``now`` is one of ``statuses``."""
    live, lapsed = awaiting(now)
    stored = [s for s in statuses if s not in ("SENT", "VIEWED")]
    shown: list[ColumnElement[bool]] = [Proposal.status.in_(stored)]
    shown += [live & (Proposal.status == s) for s in ("SENT", "VIEWED") if s in statuses]
    if "EXPIRED" in statuses:
        shown.append(lapsed)
    return or_(*shown)


def filtered(vis: Visibility, filters: ProposalFilters, now: datetime) -> list[ColumnElement[bool]]:
    conditions = vis.where(Proposal)
    if filters.status:
        conditions.append(shown_status_in(filters.status, now))
    if filters.client_email:
        conditions.append(func.lower(Proposal.client_email) == filters.client_email.lower())
    if filters.updated_since is not None:
        conditions.append(Proposal.updated_at >= filters.updated_since)
    if filters.q:
        escaped = filters.q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        pattern = f"%{escaped}%"
        searched = (
            Proposal.title,
            Proposal.reference,
            Proposal.client_name,
            Proposal.client_company,
            Proposal.client_email,
        )
        conditions.append(or_(*(column.ilike(pattern, escape="\\") for column in searched)))
    return conditions


async def list_rows(
    db: AsyncSession, vis: Visibility, filters: ProposalFilters, page: PageParams, now: datetime
) -> Sequence[Row[Any]]:
    query = select(*FIELDS.columns).where(*filtered(vis, filters, now))
    return (await db.execute(page.apply(query, Proposal.id))).all()


async def get(db: AsyncSession, vis: Visibility, proposal_id: str) -> Proposal | None:
    query = select(Proposal).where(Proposal.id == proposal_id, *vis.where(Proposal))
    proposal: Proposal | None = (await db.execute(query)).scalar_one_or_none()
    return proposal


def _count(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _cents(condition: ColumnElement[bool]) -> ColumnElement[int]:
    """The exact sum in cents of the totals matching ``condition`` (integers sum exactly on
    every backend, where SQLite's NUMERIC columns hold floats)."""
    cents = cast(func.round(Proposal.total * 100), BigInteger)
    return func.coalesce(func.sum(case((condition, cents), else_=0)), 0)


def _days(dialect: str, end: Any, start: Any) -> ColumnElement[Any]:
    if dialect == "sqlite":
        return func.julianday(end) - func.julianday(start)
    return extract("epoch", end - start) / 86400.0


async def summary(db: AsyncSession, vis: Visibility, now: datetime) -> Any:
    """Every figure of the analytics summary in one aggregate query."""
    dialect = db.get_bind().dialect.name
    status = Proposal.status
    live, lapsed = awaiting(now)
    decided_at = case(
        (status == "ACCEPTED", Proposal.accepted_at),
        (status == "DECLINED", Proposal.declined_at),
    )
    decided = status.in_(("ACCEPTED", "DECLINED")) & Proposal.sent_at.is_not(None)
    query = select(
        func.count().label("total"),
        _count(status == "DRAFT").label("draft"),
        _count(live & (status == "SENT")).label("sent"),
        _count(live & (status == "VIEWED")).label("viewed"),
        _count(status == "ACCEPTED").label("accepted"),
        _count(status == "DECLINED").label("declined"),
        _count((status == "EXPIRED") | lapsed).label("expired"),
        _count(status == "CHANGES_REQUESTED").label("changes_requested"),
        _cents(live | (status == "CHANGES_REQUESTED")).label("pipeline_cents"),
        _cents(status == "ACCEPTED").label("accepted_cents"),
        func.avg(
            case((decided & decided_at.is_not(None), _days(dialect, decided_at, Proposal.sent_at)))
        ).label("average_days"),
    ).where(*vis.where(Proposal))
    return (await db.execute(query)).one()
