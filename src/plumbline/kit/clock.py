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
    """ISO 8601 UTC with ``Z``, millisecond precision: the one way a time goes on the wire
    (``kit.encoding`` writes every ``datetime`` with it). A naive value is UTC."""
    if value is None:
        return None
    if value.tzinfo is not UTC:  # the database hands back UTC: the common case costs nothing
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value.isoformat(timespec="milliseconds")[:-6] + "Z"
