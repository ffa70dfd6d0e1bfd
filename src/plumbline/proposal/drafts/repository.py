"""The queries of the proposal list and its analytics (one project, never deleted proposals)."""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, Row, case, cast, extract, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit import search
from plumbline.kit.pagination import PageParams
from plumbline.models import Proposal
from plumbline.proposal import status
from plumbline.proposal.drafts.schemas import ProposalFilters
from plumbline.proposal.read import FIELDS
from plumbline.records.visibility import Visibility

# Table columns, not the ORM class's: a statement naming no entity runs on Core's execution path
# (the ORM's adds a per-row step to a 1,000-row page).
P = Proposal.__table__.c


def awaiting(now: datetime) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """SENT and VIEWED proposals still open at ``now``, and those whose ``validUntil`` has
    passed, which every read shows as EXPIRED (``status.shown``)."""
    sent = P.status.in_(status.LIVE)
    return sent & (P.valid_until > now), sent & (P.valid_until <= now)


def shown_status_in(statuses: Sequence[str], now: datetime) -> ColumnElement[bool]:
    """The proposals whose status as shown at ``now`` is one of ``statuses``."""
    live, lapsed = awaiting(now)
    stored = [s for s in statuses if s not in status.LIVE]
    shown: list[ColumnElement[bool]] = [P.status.in_(stored)]
    shown += [live & (P.status == s) for s in status.LIVE if s in statuses]
    if status.EXPIRED in statuses:
        shown.append(lapsed)
    return or_(*shown)


def filtered(vis: Visibility, filters: ProposalFilters, now: datetime) -> list[ColumnElement[bool]]:
    conditions = vis.where(P)
    if filters.status:
        conditions.append(shown_status_in(filters.status, now))
    if filters.client_email:
        conditions.append(func.lower(P.client_email) == filters.client_email.lower())
    if filters.q:
        searched = (
            P.title,
            P.reference,
            P.client_name,
            P.client_company,
            P.client_email,
        )
        conditions.append(search.matches(filters.q, *searched))
    return conditions


async def list_rows(
    db: AsyncSession, vis: Visibility, filters: ProposalFilters, page: PageParams, now: datetime
) -> Sequence[Row[Any]]:
    query = select(*FIELDS.columns).where(*filtered(vis, filters, now))
    return (await db.execute(search.inline(page.apply(query, P.id), filters.q))).all()


async def signature(db: AsyncSession, proposal_id: str) -> bytes | None:
    """The client's signature (PNG) once accepted, for the PDF."""
    query = select(P.signature_png).where(P.id == proposal_id)
    return (await db.execute(query)).scalar_one_or_none()


def _count(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _cents(condition: ColumnElement[bool]) -> ColumnElement[int]:
    """The exact sum in cents of the totals matching ``condition`` (integers sum exactly on
    every backend, where SQLite's NUMERIC columns hold floats)."""
    cents = cast(func.round(P.total * 100), BigInteger)
    return func.coalesce(func.sum(case((condition, cents), else_=0)), 0)


def _days(dialect: str, end: Any, start: Any) -> ColumnElement[Any]:
    if dialect == "sqlite":
        return func.julianday(end) - func.julianday(start)
    return extract("epoch", end - start) / 86400.0


async def summary(db: AsyncSession, vis: Visibility, now: datetime) -> Any:
    """Every figure of the analytics summary in one aggregate query."""
    dialect = db.get_bind().dialect.name
    column = P.status
    live, lapsed = awaiting(now)
    decided_at = case(
        (column == status.ACCEPTED, P.accepted_at),
        (column == status.DECLINED, P.declined_at),
    )
    decided = column.in_(status.ANSWERED) & P.sent_at.is_not(None)
    query = select(
        func.count().label("total"),
        _count(column == status.DRAFT).label("draft"),
        _count(live & (column == status.SENT)).label("sent"),
        _count(live & (column == status.VIEWED)).label("viewed"),
        _count(column == status.ACCEPTED).label("accepted"),
        _count(column == status.DECLINED).label("declined"),
        _count((column == status.EXPIRED) | lapsed).label("expired"),
        _count(column == status.CHANGES_REQUESTED).label("changes_requested"),
        _cents(live | (column == status.CHANGES_REQUESTED)).label("pipeline_cents"),
        _cents(column == status.ACCEPTED).label("accepted_cents"),
        func.avg(
            case((decided & decided_at.is_not(None), _days(dialect, decided_at, P.sent_at)))
        ).label("average_days"),
    ).where(*vis.where(P))
    return (await db.execute(query)).one()
