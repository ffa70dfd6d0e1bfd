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


FOUR = Decimal("0.0001")


def number_text(value: Decimal) -> str:
    """A quantity, rate or percentage as a plain decimal string, at least two places."""
    text = format(value.quantize(FOUR).normalize(), "f")
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction.ljust(2, '0')}"
