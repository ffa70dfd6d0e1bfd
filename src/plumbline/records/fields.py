"""A record's response fields, written once per resource: camelCase name -> column.

The list, the single read, the create/update answer, the export and the live event all build
their dicts from the same ``Fields``: the list from selected columns (``fields.columns``, never
entities), the others from an entity; names mapped to ``None`` are filled in by the module
(related collections, derived values) at their place in the response."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from orjson import Fragment
from sqlalchemy import JSON, Date, DateTime, Text, cast, type_coerce

from plumbline.db import UTCDateTime
from plumbline.kit.clock import iso


def day(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def json(value: Any) -> Any:
    """A JSON column: selected as its text (handed to orjson untouched) or a Python value."""
    return Fragment(value) if type(value) is str else value


class Fields:
    def __init__(
        self,
        table: Any,
        names: Mapping[str, str | None],
        *,
        json_text: bool = True,
        as_text: Sequence[str] = (),
    ) -> None:
        """``json_text``: select JSON columns as their text (for a module that does not read
        them), so a 1,000-row page's JSON is neither parsed nor re-encoded. ``as_text``: columns
        selected as their text, which the module formats (decimals: no ``Decimal`` per value)."""
        self.table = table
        self.names = dict(names)
        self.keys = tuple(column for column in names.values() if column is not None)
        formats: dict[str, Callable[[Any], Any]] = {}
        columns = []
        for key in self.keys:
            column = table.c[key]
            if isinstance(column.type, UTCDateTime | DateTime):
                formats[key] = iso
                # Without the UTCDateTime hook: asyncpg returns aware UTC datetimes and SQLite's
                # naive ones are UTC; ``iso`` formats both (a Python call less per value).
                column = type_coerce(column, DateTime(timezone=True)).label(key)
            elif isinstance(column.type, Date):
                formats[key] = day
            elif key in as_text:
                column = cast(column, Text).label(key)
            elif isinstance(column.type, JSON) and json_text:
                formats[key] = json
                column = cast(column, Text).label(key)
            columns.append(column)
        self.columns = tuple(columns)
        # A row is built from C-level dict operations: copy the ordered template, pour the
        # column values in, format the few that need it. (A Python loop over every field per
        # value made a 1,000-row page's serialisation 2.5 times slower.)
        self._template = dict.fromkeys(self.names)
        self._column_names = tuple(name for name, key in self.names.items() if key is not None)
        self._formats = tuple(
            (name, formats[key]) for name, key in self.names.items() if key in formats
        )

    def row(self, row: Sequence[Any], **extra: Any) -> dict[str, Any]:
        """The response of one record from a row that starts with ``columns`` (in that order)
        and the module's own fields ``extra``."""
        result = self._template.copy()
        # The row may hold more than ``columns``. zip(strict=False) would build a keyword dict
        # per row: 150 k instructions on a 100-row page (benchmarks/README.md).
        result.update(zip(self._column_names, row))  # noqa: B905
        for name, format_ in self._formats:
            value = result[name]
            if value is not None:  # a None stays None: no call
                result[name] = format_(value)
        if extra:
            result.update(extra)
        return result

    def read(self, values: Mapping[Any, Any], **extra: Any) -> dict[str, Any]:
        """``row`` from column ``values`` (a row's ``_mapping`` or ``of(entity)``)."""
        return self.row([values[key] for key in self.keys], **extra)

    def of(self, entity: Any) -> dict[str, Any]:
        """The column values of an entity (or a ``values`` dict already complete)."""
        if isinstance(entity, Mapping):
            return {key: entity.get(key) for key in self.keys}
        return {key: getattr(entity, key) for key in self.keys}

    def audited(self, entity: Any, names: Sequence[str]) -> dict[str, Any]:
        """The camelCase values of ``names`` that the audit log compares."""
        return {name: getattr(entity, self.names[name] or name) for name in names}

    def columns_of(self, names: Sequence[str]) -> tuple[str, ...]:
        return tuple(self.names[name] or name for name in names)
