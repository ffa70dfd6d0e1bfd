"""List orders other than newest first (``kit.pagination``'s ``apply_order``): a column, or a
ranked column, then the id in the same direction, NULL keys last; a page ends with a signed
cursor of ``(order, key, id)`` (``o~...``) that pages only that order."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import orjson
from sqlalchemy import ColumnElement, and_, case, or_

from plumbline.errors import InvalidField
from plumbline.kit import crypto

ORDER_PREFIX = "o~"
CURSOR_PURPOSE = "list-cursor"


def invalid_cursor(message: str = "not a cursor from this API") -> InvalidField:
    return InvalidField("cursor", message, error="Invalid cursor")


@dataclass(frozen=True)
class Order:
    """A list order: ``column`` (through ``rank`` when its values sort by meaning, such as
    priorities), then the id in the same direction; NULL keys last either way. ``field``: the
    key of that column in the rows (``finish`` reads the last row's value from it)."""

    name: str
    column: Any
    field: str
    descending: bool = False
    rank: dict[str, int] | None = None

    @property
    def key(self) -> Any:
        return case(self.rank, value=self.column) if self.rank else self.column

    def value(self, row: Any) -> Any:
        if isinstance(row, dict):
            value = row[self.field]
        elif hasattr(row, "_mapping"):
            value = row._mapping[self.field]
        else:
            value = getattr(row, self.field)
        return self.rank.get(value) if self.rank and value is not None else value

    def after(self, at: Any, after_id: str, id_column: Any) -> ColumnElement[bool]:
        """Strictly after ``(at, after_id)`` in this order."""
        key = self.key
        later_id = id_column < after_id if self.descending else id_column > after_id
        if at is None:
            return and_(key.is_(None), later_id)
        later = key < at if self.descending else key > at
        return or_(key.is_(None), later, and_(key == at, later_id))

    def by(self, id_column: Any) -> tuple[Any, ...]:
        key = self.key
        if self.descending:
            return (key.is_(None), key.desc(), id_column.desc())
        return (key.is_(None), key.asc(), id_column.asc())


def _encode_key(value: Any) -> Any:
    if value is None or isinstance(value, int | str):
        return value
    if isinstance(value, datetime):
        return {"t": value.astimezone(UTC).isoformat(timespec="microseconds")}
    if isinstance(value, date):
        return {"d": value.isoformat()}
    raise RuntimeError(f"an order key of type {type(value).__name__} cannot be a cursor")


def _decode_key(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("t"), str):
        return datetime.fromisoformat(value["t"]).astimezone(UTC)
    if isinstance(value, dict) and isinstance(value.get("d"), str):
        return date.fromisoformat(value["d"])
    if value is None or isinstance(value, int | str):
        return value
    raise ValueError("not a key")


def encode_order_cursor(order: Order, at: Any, last_id: str) -> str:
    """``o~<base64url of [order, key, id]>.<HMAC>``: a cursor of that order only."""
    payload = orjson.dumps([order.name, _encode_key(at), last_id])
    text = base64.urlsafe_b64encode(payload).decode().rstrip("=")
    return ORDER_PREFIX + crypto.signed(text, CURSOR_PURPOSE)


def decode_order_cursor(order: Order, cursor: str) -> tuple[Any, str]:
    payload = crypto.unsign(cursor.removeprefix(ORDER_PREFIX), CURSOR_PURPOSE)
    if payload is None:
        raise invalid_cursor()
    try:
        name, at, last_id = orjson.loads(
            base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        )
        key = _decode_key(at)
    except (binascii.Error, ValueError, TypeError):
        raise invalid_cursor() from None
    if name != order.name or not isinstance(last_id, str):
        raise invalid_cursor("a cursor of another order")
    return key, last_id
