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


def iso(value: datetime | None) -> str | None:
    """ISO 8601 UTC with ``Z``, millisecond precision."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
