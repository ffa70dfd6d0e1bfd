"""List pagination: ``limit`` (1..1000, default 100), an opaque ``cursor`` and ``updatedSince``.

Two orders, one per mode:
- **newest first** (no ``updatedSince``): ids are time-sortable, so the cursor is the last id seen
  and the next page is ``id < cursor``;
- **oldest change first** (``updatedSince``, incremental sync): the rows whose change time is at
  or after it, ordered by ``(change time, id)`` ascending, and the cursor is that pair of the last
  row (signed), so the next page starts strictly after it: a row that did not change is never
  skipped nor repeated. The change time is the table's ``updated_at``, or ``created_at`` for a
  table without one (its rows never change, or their changes are not tracked), or the column a
  repository names. Rows changed in the last ``PLUMBLINE_SYNC_SETTLE_SECONDS`` are left for a
  later call: a transaction that stamped its rows earlier may not have committed yet, and a
  reader that passed its stamp would never see it (docs/integrations.md).

A list may offer other orders (``Order``: a column or ranked column, then the id, NULL keys
last), paged by ``apply_order`` with a signed ``(key, id)`` cursor of that order (``o~...``).

When more rows exist, ``Link: <...>; rel="next"`` carries the next URL.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Generic, TypeVar, TypeVarTuple

from fastapi import Depends, Query, Request
from sqlalchemy import ColumnElement, Select, and_, bindparam, literal, or_
from sqlalchemy.orm import InstrumentedAttribute

from plumbline.config import settings
from plumbline.errors import InvalidField
from plumbline.kit import clock, crypto
from plumbline.kit.ordering import ORDER_PREFIX, Order, decode_order_cursor, encode_order_cursor
from plumbline.kit.schema import Instant

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
MAX_LIMIT = 1000
# A client that leaves out ``limit`` gets a page a worker serves at several hundred per second;
# one of 1,000 rows costs about 15 ms of CPU (issue 28).
DEFAULT_LIMIT = 100
CURSOR_PURPOSE = "list-cursor"
# The header of an updatedSince list's last page: the updatedSince of the next sync.
NEXT_SINCE = "X-Next-Updated-Since"
# Tables whose change time is neither ``updated_at`` nor ``created_at``.
CHANGE_COLUMN = {"memberships": "joined_at"}

UPDATED_SINCE_DOC = (
    "Incremental sync: only the rows changed at or after this instant (ISO 8601), oldest change "
    "first, ordered by (updatedAt, id) and paged with a cursor that never skips nor repeats a "
    "row that did not change. The change time is `updatedAt`; a resource without one uses its "
    "creation time (`createdAt`; `joinedAt` for members), as it is never edited or its edits "
    "are not tracked. Rows changed in the last few seconds (`PLUMBLINE_SYNC_SETTLE_SECONDS`) "
    "come in a later call. A row changed again after it was returned comes again with its new "
    "`updatedAt`. The last page's `X-Next-Updated-Since` header is the `updatedSince` of the "
    "next sync."
)

LIMIT_DOC = (
    f"Rows per page, 1..{MAX_LIMIT}; {DEFAULT_LIMIT} when left out. When more rows exist, the "
    '`Link: <...>; rel="next"` header holds the next page\'s URL (with its `cursor`).'
)

AnyColumn = ColumnElement[Any] | InstrumentedAttribute[Any]


def change_column(id_column: AnyColumn) -> ColumnElement[Any]:
    """The change time of the table ``id_column`` belongs to (see the module's docstring)."""
    table = id_column.table if hasattr(id_column, "table") else id_column.class_.__table__
    columns = table.c
    name = CHANGE_COLUMN.get(table.name) or (
        "updated_at" if "updated_at" in columns else "created_at"
    )
    found: ColumnElement[Any] = columns[name]
    return found


class Paged(Generic[*Ts]):
    """A list query paginated with bound parameters, for a module-level constant: a statement
    built once is compiled once and its result metadata reused, where ``PageParams.apply``
    builds one per request (worth it on the busiest lists only)."""

    def __init__(self, query: Select[*Ts], id_column: InstrumentedAttribute[str]) -> None:
        newest_first = query.order_by(id_column.desc()).limit(bindparam("page_limit"))
        self.first = newest_first
        self.after = newest_first.where(id_column < bindparam("page_after"))
        changed = change_column(id_column)
        self.change_key = str(changed.key)
        since = (
            query.where(changed >= bindparam("page_since"), changed < bindparam("page_horizon"))
            .order_by(changed.asc(), id_column.asc())
            .limit(bindparam("page_limit"))
        )
        self.since_first = since
        self.since_after = since.where(
            _after(changed, id_column, bindparam("page_after_at"), bindparam("page_after"))
        )


def _after(changed: Any, id_column: Any, at: Any, after_id: Any) -> ColumnElement[bool]:
    """Strictly after ``(at, after_id)`` in ``(changed, id)`` order; the redundant ``changed >=
    at`` gives an index on ``(..., changed, id)`` its range."""
    return and_(changed >= at, or_(changed > at, and_(changed == at, id_column > after_id)))


@dataclass(frozen=True)
class Position:
    """Where an updatedSince page ended: the last row's change time and id."""

    at: datetime
    id: str


@dataclass(frozen=True)
class PageParams:
    limit: int
    after_id: str | None
    request: Request
    since: datetime | None = None
    after: Position | None = None
    # Rows changed at or after this instant wait for a later call (the settle window).
    horizon: datetime | None = None
    # A cursor of an ``Order`` (``apply_order`` reads it).
    ordered: str | None = None
    # The change column's key in the rows, once a query was paged in updatedSince mode.
    _change_key: list[str] = field(default_factory=list, repr=False, compare=False)
    # The order a query was paged in by ``apply_order``.
    _order: list[Order] = field(default_factory=list, repr=False, compare=False)

    def apply(
        self,
        query: Select[*Ts],
        id_column: AnyColumn,
        changed: AnyColumn | None = None,
    ) -> Select[*Ts]:
        """Page ``query``; in updatedSince mode it must select the change column (``changed``,
        else the table's, see ``change_column``) under its own name."""
        if self.ordered is not None:
            raise _invalid("a cursor of another order")
        if self.since is None:
            if self.after_id is not None:
                query = query.where(id_column < self.after_id)
            return query.order_by(id_column.desc()).limit(self._rows())
        column: Any = changed if changed is not None else change_column(id_column)
        self._change_key.append(column.key)
        query = query.where(column >= self.since, column < self.horizon)
        if self.after is not None:
            query = query.where(_after(column, id_column, self.after.at, self.after.id))
        return query.order_by(column.asc(), id_column.asc()).limit(self._rows())

    def apply_order(
        self, query: Select[*Ts], id_column: AnyColumn, order: Order | None
    ) -> Select[*Ts]:
        """Page ``query`` in ``order`` (None: as ``apply``); it must select ``order.field``."""
        if order is None:
            return self.apply(query, id_column)
        if self.since is not None:
            raise InvalidField("sort", "cannot be combined with updatedSince")
        if self.after_id is not None:
            raise _invalid("a cursor of another order")
        self._order.append(order)
        if self.ordered is not None:
            at, after_id = decode_order_cursor(order, self.ordered)
            query = query.where(order.after(at, after_id, id_column))
        return query.order_by(*order.by(id_column)).limit(self._rows())

    def _rows(self) -> ColumnElement[int]:
        """The page and its look-ahead row, written into the statement: a plan made without
        the parameters (PostgreSQL's generic plan) then still knows the page is small, where a
        parameter is taken for a tenth of the rows found (issue 28: it walked the primary key
        for a rare word). One prepared statement per page size used."""
        return literal(self.limit + 1, literal_execute=True)

    def bind(self, paged: Paged[*Ts]) -> tuple[Select[*Ts], dict[str, Any]]:
        """The statement of ``paged`` for this page and its page parameters."""
        params: dict[str, Any] = {"page_limit": self.limit + 1}
        if self.since is not None:
            self._change_key.append(paged.change_key)
            params |= {"page_since": self.since, "page_horizon": self.horizon}
            if self.after is None:
                return paged.since_first, params
            params |= {"page_after_at": self.after.at, "page_after": self.after.id}
            return paged.since_after, params
        if self.after_id is None:
            return paged.first, params
        return paged.after, params | {"page_after": self.after_id}

    def finish(self, rows: Sequence[T], last_id: Any = None) -> tuple[list[T], dict[str, str]]:
        """Trim the look-ahead row; return the page and the ``Link`` header when there is more.
        ``rows`` are the query's rows (or entities), before they become response dicts. The last
        page of an updatedSince list says where the next sync starts: every change before the
        horizon has been returned (``NEXT_SINCE``)."""
        if len(rows) <= self.limit:
            if self.since is not None and self.horizon is not None:
                return list(rows), {NEXT_SINCE: _exact(max(self.since, self.horizon))}
            return list(rows), {}
        page = list(rows[: self.limit])
        last = page[-1]
        cursor_id = last_id(last) if callable(last_id) else _row_id(last)
        if self._order:
            order = self._order[-1]
            cursor = encode_order_cursor(order, order.value(last), cursor_id)
        elif self.since is None:
            cursor = encode_cursor(cursor_id)
        else:
            if not self._change_key:
                raise RuntimeError("an updatedSince page must be built by apply() or bind()")
            cursor = encode_position(Position(_value(last, self._change_key[-1]), cursor_id))
        url = self.request.url.include_query_params(cursor=cursor, limit=self.limit)
        return page, {"Link": f'<{url}>; rel="next"'}


def _exact(value: datetime) -> str:
    """ISO 8601 UTC to the microsecond, ``Z``: a position, not a time shown to anyone."""
    value = value if value.tzinfo else value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _row_id(row: Any) -> str:
    return str(row["id"] if isinstance(row, dict) else row.id)


def _value(row: Any, key: str) -> datetime:
    if isinstance(row, dict):
        value = row[key]
    elif hasattr(row, "_mapping"):
        value = row._mapping[key]
    else:
        value = getattr(row, key)
    if not isinstance(value, datetime):
        raise RuntimeError(f"an updatedSince list must select its change column {key!r}")
    return value


def _invalid(message: str = "not a cursor from this API") -> InvalidField:
    return InvalidField("cursor", message, error="Invalid cursor")


def encode_cursor(last_id: str) -> str:
    return base64.urlsafe_b64encode(last_id.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        decoded = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        decoded = ""
    if not decoded or not decoded.isprintable() or len(decoded) > 200 or "|" in decoded:
        raise _invalid()
    return decoded


def encode_position(position: Position) -> str:
    """``<base64url of "<change time, microseconds, UTC>|<id>">.<HMAC>``: signed, so a cursor
    that was altered is refused rather than read as another position."""
    text = f"{_exact(position.at)}|{position.id}"
    return crypto.signed(encode_cursor(text), CURSOR_PURPOSE)


def decode_position(cursor: str) -> Position:
    payload = crypto.unsign(cursor, CURSOR_PURPOSE)
    if payload is None:
        raise _invalid()
    try:
        text = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
        at_text, _, position_id = text.partition("|")
        at = datetime.fromisoformat(at_text)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise _invalid() from None
    if at.tzinfo is None or not position_id:
        raise _invalid()
    return Position(at.astimezone(UTC), position_id)


async def updated_since(
    since: Annotated[
        Instant | None, Query(alias="updatedSince", description=UPDATED_SINCE_DOC)
    ] = None,
) -> datetime | None:
    """The ``updatedSince`` query parameter; a dependency of its own so that a list's filters
    (for its export) and its page share one parameter."""
    return since


UpdatedSince = Annotated[datetime | None, Depends(updated_since)]


async def page_params(
    request: Request,
    # The same parameter as ``UpdatedSince`` (a list's filters read it too: the OpenAPI lists
    # it once), not that dependency: a dependency less to solve on every page.
    since: Annotated[
        Instant | None, Query(alias="updatedSince", description=UPDATED_SINCE_DOC)
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description=LIMIT_DOC)] = DEFAULT_LIMIT,
    cursor: Annotated[str | None, Query(description="Opaque cursor from the Link header")] = None,
) -> PageParams:
    if since is None:
        if cursor is not None and cursor.startswith(ORDER_PREFIX):
            return PageParams(limit, None, request, ordered=cursor)
        if cursor is not None and "." in cursor:
            raise _invalid("an updatedSince cursor needs its updatedSince")
        return PageParams(limit, decode_cursor(cursor) if cursor else None, request)
    if cursor is not None and "." not in cursor:
        raise _invalid("a cursor of the newest-first order cannot page an updatedSince list")
    settle = timedelta(seconds=settings.sync_settle_seconds)
    return PageParams(
        limit,
        None,
        request,
        since=since,
        after=decode_position(cursor) if cursor else None,
        horizon=clock.now() - settle,
    )


Page = Annotated[PageParams, Depends(page_params)]
