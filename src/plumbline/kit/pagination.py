"""List pagination: ``limit`` (1..1000, default 1000) and an opaque ``cursor``, newest first.

Ids are time-sortable, so the cursor is the last id seen and the next page is ``id < cursor``.
When more rows exist, ``Link: <...>; rel="next"`` carries the next URL.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar, TypeVarTuple

from fastapi import Depends, Query, Request
from sqlalchemy import Select, bindparam
from sqlalchemy.orm import InstrumentedAttribute

from plumbline.errors import InvalidField

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
MAX_LIMIT = 1000


class Paged(Generic[*Ts]):
    """A list query paginated with bound parameters, for a module-level constant: a statement
    built once is compiled once and its result metadata reused, where ``PageParams.apply``
    builds one per request (worth it on the busiest lists only)."""

    def __init__(self, query: Select[*Ts], id_column: InstrumentedAttribute[str]) -> None:
        newest_first = query.order_by(id_column.desc()).limit(bindparam("page_limit"))
        self.first = newest_first
        self.after = newest_first.where(id_column < bindparam("page_after"))


@dataclass(frozen=True)
class PageParams:
    limit: int
    after_id: str | None
    request: Request

    def apply(self, query: Select[*Ts], id_column: InstrumentedAttribute[str]) -> Select[*Ts]:
        if self.after_id is not None:
            query = query.where(id_column < self.after_id)
        return query.order_by(id_column.desc()).limit(self.limit + 1)

    def bind(self, paged: Paged[*Ts]) -> tuple[Select[*Ts], dict[str, Any]]:
        """The statement of ``paged`` for this page and its page parameters."""
        if self.after_id is None:
            return paged.first, {"page_limit": self.limit + 1}
        return paged.after, {"page_limit": self.limit + 1, "page_after": self.after_id}

    def finish(self, rows: Sequence[T], last_id: Any = None) -> tuple[list[T], dict[str, str]]:
        """Trim the look-ahead row; return the page and the ``Link`` header when there is more."""
        if len(rows) <= self.limit:
            return list(rows), {}
        page = list(rows[: self.limit])
        last = page[-1]
        cursor_id = last_id(last) if callable(last_id) else _row_id(last)
        url = self.request.url.include_query_params(
            cursor=encode_cursor(cursor_id), limit=self.limit
        )
        return page, {"Link": f'<{url}>; rel="next"'}


def _row_id(row: Any) -> str:
    return str(row["id"] if isinstance(row, dict) else row.id)


def encode_cursor(last_id: str) -> str:
    return base64.urlsafe_b64encode(last_id.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        decoded = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        decoded = ""
    if not decoded or not decoded.isprintable() or len(decoded) > 200:
        raise InvalidField("cursor", "not a cursor from this API", error="Invalid cursor")
    return decoded


async def page_params(
    request: Request,
    limit: Annotated[
        int, Query(ge=1, le=MAX_LIMIT, description="Rows per page (1..1000)")
    ] = MAX_LIMIT,
    cursor: Annotated[str | None, Query(description="Opaque cursor from the Link header")] = None,
) -> PageParams:
    return PageParams(limit, decode_cursor(cursor) if cursor else None, request)


Page = Annotated[PageParams, Depends(page_params)]
