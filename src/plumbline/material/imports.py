"""Parsing a materials CSV: a header row naming the columns, then one material a row.

Columns in any order and any case; unknown columns (such as an export's ``id``) are ignored.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from pydantic import ValidationError

from plumbline.errors import InvalidField
from plumbline.material.schemas import MaterialCreate

MAX_ROWS = 5000
COLUMNS = ("name", "unit", "unitPrice", "currency", "sku", "category", "supplier")
REQUIRED = ("name", "unit")


@dataclass
class ParsedRow:
    number: int  # the spreadsheet row: the header is row 1
    data: MaterialCreate | None
    errors: list[str] = field(default_factory=list)


def _refuse(message: str, field_name: str = "body") -> InvalidField:
    return InvalidField(field_name, message, error=message)


def _message(error: dict[str, object]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))  # type: ignore[attr-defined]
    return f"{where}: {error.get('msg')}" if where else str(error.get("msg"))


def parse_rows(body: bytes) -> list[ParsedRow]:
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _refuse("The CSV must be UTF-8 text") from None
    if "\x00" in text:
        raise _refuse("The CSV must not contain NUL characters")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise _refuse("The CSV is empty: it needs a header row", "header")
        by_name = {name.lower(): name for name in COLUMNS}
        positions = {
            by_name[cell.strip().lower()]: i
            for i, cell in enumerate(header)
            if cell.strip().lower() in by_name
        }
        missing = [name for name in REQUIRED if name not in positions]
        if missing:
            raise _refuse(f"The header row lacks the column(s): {', '.join(missing)}", "header")
        rows: list[ParsedRow] = []
        seen: dict[str, int] = {}
        for number, cells in enumerate(reader, start=2):
            if not any(cell.strip() for cell in cells):
                continue  # blank lines
            if len(rows) >= MAX_ROWS:
                raise _refuse(f"At most {MAX_ROWS} rows can be imported at once", "rows")
            values = {
                name: cells[i].strip()
                for name, i in positions.items()
                if i < len(cells) and cells[i].strip()
            }
            rows.append(_row(number, values, seen))
    except csv.Error as error:
        raise _refuse(f"The CSV is malformed: {error}") from None
    if not rows:
        raise _refuse("The CSV holds no rows", "rows")
    return rows


def _row(number: int, values: dict[str, str], seen: dict[str, int]) -> ParsedRow:
    try:
        data = MaterialCreate.model_validate(values)
    except ValidationError as error:
        return ParsedRow(number, None, [_message(dict(e)) for e in error.errors()])
    row = ParsedRow(number, data)
    if data.sku is not None:
        if data.sku in seen:
            row.errors.append(f"sku: {data.sku!r} is also on row {seen[data.sku]}")
        seen.setdefault(data.sku, number)
    return row
