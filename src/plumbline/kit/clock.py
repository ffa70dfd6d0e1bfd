"""The one clock of the service; tests move it with ``set_now``."""

from datetime import UTC, date, datetime

_frozen: datetime | None = None


def now() -> datetime:
    return _frozen if _frozen is not None else datetime.now(UTC)


def today() -> date:
    return now().date()


def set_now(value: datetime | None) -> None:
    global _frozen
    _frozen = value


# Zero-padded digits looked up rather than formatted: a list route formats two or more times per
# row, and ``%`` formatting of seven numbers cost twice the lookups (benchmarks/README.md).
_2_DIGITS = [f"{i:02d}" for i in range(100)]
_3_DIGITS = [f"{i:03d}" for i in range(1000)]
_4_DIGITS = [f"{i:04d}" for i in range(10000)]


def iso(value: datetime | None) -> str | None:
    """ISO 8601 UTC with ``Z``, millisecond precision: the one way a time goes on the wire
    (``kit.encoding`` writes every ``datetime`` with it). A naive value is UTC."""
    if value is None:
        return None
    if value.tzinfo is not None and value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return (
        f"{_4_DIGITS[value.year]}-{_2_DIGITS[value.month]}-{_2_DIGITS[value.day]}"
        f"T{_2_DIGITS[value.hour]}:{_2_DIGITS[value.minute]}:{_2_DIGITS[value.second]}"
        f".{_3_DIGITS[value.microsecond // 1000]}Z"
    )
