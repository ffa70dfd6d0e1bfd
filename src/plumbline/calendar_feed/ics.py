"""The iCalendar text of a feed (RFC 5545, with RFC 7986's REFRESH-INTERVAL), written by the
``icalendar`` library from plain entries; pure: no database, no clock.

Calendar-day fields (``dueDate``, the project's day a maintenance or inspection is due) are
all-day ``DATE`` events, which every client shows on that day whatever its own time zone;
instants (schedule tasks, a proposal's ``validUntil``) are UTC date-times.

Every text the feed carries (names, titles, locations, ids a client chose) goes through
``text``, so that no string a user typed can break the feed (RFC 5545 3.3.11)."""

from __future__ import annotations

import re
from calendar import monthrange
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from icalendar import Calendar, Event, vDuration, vText

PRODID = "-//Plumbline//Calendar feeds 1.0//EN"
# How often subscribers should fetch again (Outlook reads X-PUBLISHED-TTL, others REFRESH-INTERVAL).
REFRESH = timedelta(hours=1)
_MONTHS = {"MONTHLY": 1, "QUARTERLY": 3, "SEMI_ANNUAL": 6, "ANNUAL": 12}
_DAYS = {"DAILY": ("DAILY", 1), "WEEKLY": ("WEEKLY", 1), "BIWEEKLY": ("WEEKLY", 2)}
# What readers take for a line break; a TEXT value keeps each as its one escape, ``\n``.
_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
# TEXT allows no other control character (TSAFE-CHAR), and a lone surrogate is no UTF-8.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_ESCAPES = str.maketrans({"\\": "\\\\", ";": "\\;", ",": "\\,", "\n": "\\n"})


@dataclass(frozen=True)
class Entry:
    """One event: ``uid`` is ``<kind>-<id>`` (the feed adds ``@<host>``), the same for the
    same record at every fetch; ``start`` a ``date`` (all day) or an aware UTC ``datetime``."""

    uid: str
    summary: str
    start: date | datetime
    end: date | datetime | None = None
    rrule: dict[str, Any] | None = None
    description: str | None = None
    location: str | None = None
    modified: datetime | None = None
    project_id: str | None = None  # not written: the feed may name the project


def all_day(uid: str, summary: str, day: date, **values: Any) -> Entry:
    """An all-day event on ``day`` (DTEND is the next day, exclusive)."""
    return Entry(uid, summary, day, day + timedelta(days=1), **values)


def recurrence(
    frequency: str, interval_days: int | None, anchor_day: int, first: date
) -> dict[str, Any] | None:
    """The RRULE of a calendar-based schedule first due on ``first``, repeating as
    ``om.recurrence.advance`` does: months are calendar months that return to ``anchor_day``,
    or to the month's last day when it is shorter (31 Jan, 28 Feb, 31 Mar)."""
    if frequency in _DAYS:
        freq, interval = _DAYS[frequency]
        return _rule(freq, interval)
    if frequency == "CUSTOM":
        return _rule("DAILY", interval_days) if interval_days else None
    months = _MONTHS.get(frequency)
    if months is None:
        return None
    # A due date moved by hand off its anchor day starts the series from its own day.
    if min(anchor_day, monthrange(first.year, first.month)[1]) != first.day:
        anchor_day = first.day
    if anchor_day <= 28:
        return _rule("YEARLY", 1) if months == 12 else _rule("MONTHLY", months)
    if anchor_day == 31:
        return _rule("MONTHLY", months, BYMONTHDAY=-1)
    # The 29th or 30th, else the last day of a shorter month.
    return _rule("MONTHLY", months, BYMONTHDAY=list(range(28, anchor_day + 1)), BYSETPOS=-1)


def _rule(freq: str, interval: int, **parts: Any) -> dict[str, Any]:
    rule: dict[str, Any] = {"FREQ": freq}
    if interval > 1:
        rule["INTERVAL"] = interval
    return rule | parts


class _Text(vText):
    """A TEXT value escaped as RFC 5545 says: ``vText`` itself would read a ``\\N`` the
    text holds (``C:\\Notes``) as a line break."""

    def to_ical(self) -> bytes:
        return str(self).translate(_ESCAPES).encode()


def text(value: str) -> vText:
    """``value`` as a TEXT value: line breaks kept as ``\\n``, other control characters
    dropped."""
    return _Text(_UNSAFE.sub("", _BREAKS.sub("\n", value)))


def _optional(value: str | None) -> vText | None:
    return None if value is None else text(value)


def write(
    *, name: str, calendar_uid: str, host: str, entries: Iterable[Entry], now: datetime
) -> bytes:
    """The feed: a published calendar named ``name``, its events ordered by UID."""
    calendar = Calendar.new(
        name=text(name), prodid=PRODID, uid=text(f"{calendar_uid}@{host}"), method="PUBLISH"
    )
    calendar.add("REFRESH-INTERVAL", REFRESH, parameters={"VALUE": "DURATION"})
    calendar.add("X-PUBLISHED-TTL", vDuration(REFRESH))
    for entry in sorted(entries, key=lambda e: e.uid):
        event = Event.new(
            uid=text(f"{entry.uid}@{host}"),
            summary=text(entry.summary),
            start=entry.start,
            end=entry.end,
            stamp=now,
            description=_optional(entry.description),
            location=_optional(entry.location),
            last_modified=entry.modified,
        )
        if entry.rrule is not None:
            event.add("RRULE", entry.rrule)
        calendar.add_component(event)
    return bytes(calendar.to_ical())
