"""Field types the O&M request bodies share."""

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator

# Far enough for any asset's life, near enough that a year's step and any time zone stay within
# what ``datetime`` holds.
FIRST_YEAR, LAST_YEAR = 1970, 2200


def _instant(value: datetime) -> datetime:
    """An instant in UTC; one written without an offset is read as UTC."""
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if not FIRST_YEAR <= value.year <= LAST_YEAR:
        raise ValueError(f"must be between {FIRST_YEAR} and {LAST_YEAR}")
    return value


Instant = Annotated[datetime, AfterValidator(_instant)]
