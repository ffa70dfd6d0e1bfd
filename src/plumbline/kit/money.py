"""Exact money arithmetic: ``Decimal`` rounded half up to cents at each step."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
# The largest amount a money column holds: 12 integer digits.
MAX_AMOUNT = Decimal("999999999999.99")


def cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def text(value: Decimal) -> str:
    """A two-decimal string, as the API answers amounts."""
    return str(cents(value))
