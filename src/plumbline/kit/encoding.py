"""The one JSON encoder of what the service writes: responses, events and JSON columns.

orjson, with every date-time written as ``clock.iso`` writes it (UTC, milliseconds, ``Z``;
PRODUCT §1) whatever handed it over: a ``datetime`` left in a response dict cannot come out in
another format (orjson's own is ``+00:00`` with microseconds)."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

import orjson

from plumbline.kit import clock

OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return clock.iso(value)
    if isinstance(value, date | time):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=_default, option=OPTIONS)
