"""Helpers for CSV exports."""

from typing import Any

# Spreadsheet programs run cells starting with these as formulas, also after leading blanks
# and line breaks (which they skip), and treat a leading tab, CR or LF as a cell break. They
# read the full-width forms (U+FF1D, U+FF0B, U+FF0D, U+FF20: what an East Asian input method
# types) as = + - @.
_FORMULA_START = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20", "\t", "\r", "\n")
_SKIPPED = " \t\r\n"


def csv_cell(value: Any) -> Any:
    """A CSV cell: empty for None, a leading apostrophe where a spreadsheet would run the text
    as a formula, anything else as it is."""
    if value is None:
        return ""
    if isinstance(value, str) and (
        value.startswith(_FORMULA_START) or value.lstrip(_SKIPPED).startswith(_FORMULA_START)
    ):
        return "'" + value
    return value
