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


def _row_function(
    names: Mapping[str, str | None], formats: Mapping[str, Callable[[Any], Any]]
) -> Callable[..., dict[str, Any]]:
    """``Fields.row`` written out for one resource, as ``dataclasses`` writes ``__init__``: one
    dict display in the response's order, each field the row's value at its place (formatted
    when it needs it and is not None), None for the module's own fields, then ``extra``. A
    loop over the fields per row cost the projects list's 100 rows 343 k instructions more
    (benchmarks/README.md). The source holds only names from the code (``repr``) and
    positions."""
    namespace: dict[str, Any] = {}
    reads: list[str] = []
    entries: list[str] = []
    position = 0
    for name, key in names.items():
        value = "None"
        if key is not None:
            value = f"row[{position}]"
            if key in formats:
                namespace[f"format_{position}"] = formats[key]
                reads.append(f"    value_{position} = row[{position}]\n")
                value = f"None if value_{position} is None else format_{position}(value_{position})"
            position += 1
        entries.append(f"        {name!r}: {value},\n")
    source = (
        "def row(row, **extra):\n"
        + "".join(reads)
        + "    result = {\n"
        + "".join(entries)
        + "    }\n"
        + "    if extra:\n"
        + "        result.update(extra)\n"
        + "    return result\n"
    )
    exec(compile(source, "<plumbline.records.fields>", "exec"), namespace)  # noqa: S102
    function: Callable[..., dict[str, Any]] = namespace["row"]
    return function


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
        self.row: Callable[..., dict[str, Any]] = _row_function(self.names, formats)
        """The response of one record from a row that starts with ``columns`` (in that order)
        and the module's own fields as keywords (``extra``)."""

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
