"""Helpers for CSV exports."""

from typing import Any

# Spreadsheet programs run cells starting with these as formulas.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell: empty for None, a leading apostrophe where a spreadsheet would run the text
    as a formula, anything else as it is."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
