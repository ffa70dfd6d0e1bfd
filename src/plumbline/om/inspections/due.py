"""Inspection due dates: whole periods counted from an anchor, calendar months for the monthly
frequencies (31 Jan + 1 month = 28/29 Feb, + 2 months = 31 Mar: each due date is computed from
the anchor, never from the previous one)."""

from __future__ import annotations

from calendar import monthrange
from datetime import datetime, timedelta

MONTHS = {"MONTHLY": 1, "QUARTERLY": 3, "SEMI_ANNUAL": 6, "ANNUAL": 12}
DAYS = {"DAILY": 1, "WEEKLY": 7, "BIWEEKLY": 14}
FREQUENCIES = (
    "DAILY",
    "WEEKLY",
    "BIWEEKLY",
    "MONTHLY",
    "QUARTERLY",
    "SEMI_ANNUAL",
    "ANNUAL",
    "CUSTOM",
)


def add_months(value: datetime, months: int) -> datetime:
    years, month = divmod(value.month - 1 + months, 12)
    year = value.year + years
    day = min(value.day, monthrange(year, month + 1)[1])
    return value.replace(year=year, month=month + 1, day=day)


def period_days(frequency: str, interval_days: int | None) -> int | None:
    """The period in days, or None for the calendar-month frequencies."""
    if frequency in MONTHS:
        return None
    return (interval_days or 1) if frequency == "CUSTOM" else DAYS[frequency]


def due_at(anchor: datetime, frequency: str, interval_days: int | None, periods: int) -> datetime:
    """The due date ``periods`` periods after ``anchor``."""
    days = period_days(frequency, interval_days)
    if days is None:
        return add_months(anchor, MONTHS[frequency] * periods)
    return anchor + timedelta(days=days * periods)


def periods_after(
    anchor: datetime, frequency: str, interval_days: int | None, periods: int, done_at: datetime
) -> int:
    """The period a completion at ``done_at`` leaves due next: the one after the current, or,
    when the inspection was missed for several periods, the first still ahead of ``done_at``
    (missed walks are not owed twice)."""
    periods += 1
    days = period_days(frequency, interval_days)
    if days is not None:
        periods = max(periods, (done_at - anchor) // timedelta(days=days) + 1)
    while due_at(anchor, frequency, interval_days, periods) <= done_at:
        periods += 1
    return periods
