"""Field types the O&M request bodies share."""

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator

from plumbline.kit import schema


def _from(first: int, end: int, message: str) -> AfterValidator:
    """The years ``first`` up to ``end`` (exclusive), else 400 ``message``."""
    start, stop = datetime(first, 1, 1, tzinfo=UTC), datetime(end, 1, 1, tzinfo=UTC)

    def check(value: datetime) -> datetime:
        if not start <= value < stop:
            raise ValueError(message)
        return value

    return AfterValidator(check)


# The kit's instant (in UTC; one written without an offset is read as UTC), far enough for any
# asset's life, near enough that a year's step and any time zone stay within ``datetime``.
Instant = Annotated[schema.Instant, _from(1970, 2201, "must be between 1970 and 2200")]
# An inspection's due date: within 2000..2200 so its walks stay computable.
WalkInstant = Annotated[schema.Instant, _from(2000, 2200, "must be between 2000 and 2200")]
