"""The date rules of maintenance schedules, pure: no database, no clock.

Dates are worked in the project's time zone, so "due by the end of today" and "the 31st of each
month" mean the project's day; instants are returned in UTC. Months are calendar months
(``dateutil.relativedelta``): 31 Jan + 1 month = 28/29 Feb. A schedule keeps an ``anchor_day``
(the day of the month it was first due) so a FIXED schedule returns to it: 31 Jan, 29 Feb,
31 Mar; a FLOATING one re-anchors on each completion's day.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil.relativedelta import relativedelta

DUE_SOON_DAYS = 7
MAX_INTERVAL_DAYS = 3650
_MONTHS = {"MONTHLY": 1, "QUARTERLY": 3, "SEMI_ANNUAL": 6, "ANNUAL": 12}
_DAYS = {"DAILY": 1, "WEEKLY": 7, "BIWEEKLY": 14}


def zone(name: str | None) -> ZoneInfo:
    """The project's time zone; UTC when unset or unknown."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def local(instant: datetime, tz: ZoneInfo) -> datetime:
    return instant.astimezone(tz)


def local_day(instant: datetime, tz: ZoneInfo) -> date:
    return instant.astimezone(tz).date()


def end_of_day(day: date, tz: ZoneInfo) -> datetime:
    """The first instant after ``day`` in ``tz`` (exclusive end), in UTC."""
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=tz).astimezone(UTC)


def advance(
    instant: datetime, frequency: str, interval_days: int | None, anchor_day: int, tz: ZoneInfo
) -> datetime:
    """One interval after ``instant``, on the project's wall clock; month steps land on
    ``anchor_day``, or the month's last day when it is shorter."""
    start = instant.astimezone(tz)
    if frequency in _MONTHS:
        moved = start + relativedelta(months=_MONTHS[frequency], day=anchor_day)
    elif frequency in _DAYS:
        moved = start + relativedelta(days=_DAYS[frequency])
    else:
        if interval_days is None:
            raise ValueError("CUSTOM needs intervalDays")
        moved = start + relativedelta(days=interval_days)
    # A wall time in a daylight-saving gap or overlap is read by ZoneInfo; back to UTC.
    result: datetime = moved.replace(tzinfo=tz).astimezone(UTC)
    return result


def next_due(
    *,
    basis: str,
    frequency: str,
    interval_days: int | None,
    anchor_day: int,
    calendar_due: datetime,
    completed_at: datetime,
    tz: ZoneInfo,
) -> tuple[datetime, int]:
    """The calendar due after a completion and the anchor day it keeps: FIXED = previous due +
    interval (anchored); FLOATING = completion + interval (anchored on the completion's day)."""
    if basis == "FIXED":
        return advance(calendar_due, frequency, interval_days, anchor_day, tz), anchor_day
    anchor = local_day(completed_at, tz).day
    return advance(completed_at, frequency, interval_days, anchor, tz), anchor


def effective_due(calendar_due: datetime, meter_due: datetime | None) -> datetime:
    """A meter schedule is due when the calendar or the meter comes first."""
    return calendar_due if meter_due is None or calendar_due <= meter_due else meter_due


def health(due: datetime, now: datetime, tz: ZoneInfo) -> str:
    """OVERDUE when its day has passed, DUE_SOON when due within 7 days (today included),
    ON_TRACK otherwise; days in the project's time zone."""
    due_day, today = local_day(due, tz), local_day(now, tz)
    if due_day < today:
        return "OVERDUE"
    if due_day <= today + timedelta(days=DUE_SOON_DAYS):
        return "DUE_SOON"
    return "ON_TRACK"


def on_time(due: datetime, completed_at: datetime, tz: ZoneInfo) -> bool:
    """Completed on or before the day it was due."""
    return local_day(completed_at, tz) <= local_day(due, tz)
