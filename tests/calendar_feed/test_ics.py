"""The RRULE of each frequency repeats exactly as ``om.recurrence.advance`` moves a due date,
and the written calendar parses back."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from dateutil.rrule import rrulestr
from icalendar import Calendar, vRecur

from plumbline.calendar_feed.ics import Entry, all_day, recurrence, write
from plumbline.om.recurrence import advance

UTC_ZONE = ZoneInfo("UTC")
FREQUENCIES = ("DAILY", "WEEKLY", "BIWEEKLY", "MONTHLY", "QUARTERLY", "SEMI_ANNUAL", "ANNUAL")


@pytest.mark.parametrize(
    ("frequency", "interval_days", "expected"),
    [
        ("DAILY", None, "FREQ=DAILY"),
        ("WEEKLY", None, "FREQ=WEEKLY"),
        ("BIWEEKLY", None, "FREQ=WEEKLY;INTERVAL=2"),
        ("MONTHLY", None, "FREQ=MONTHLY"),
        ("QUARTERLY", None, "FREQ=MONTHLY;INTERVAL=3"),
        ("SEMI_ANNUAL", None, "FREQ=MONTHLY;INTERVAL=6"),
        ("ANNUAL", None, "FREQ=YEARLY"),
        ("CUSTOM", 10, "FREQ=DAILY;INTERVAL=10"),
        ("CUSTOM", 1, "FREQ=DAILY"),
    ],
)
def test_rrule_of_each_frequency(frequency: str, interval_days: int | None, expected: str) -> None:
    rule = recurrence(frequency, interval_days, 15, date(2027, 3, 15))
    assert rule is not None
    assert vRecur(rule).to_ical().decode() == expected


def _occurrences(rule: str, first: date, count: int) -> list[date]:
    start = datetime.combine(first, time())
    return [d.date() for d in rrulestr(rule, dtstart=start)[:count]]  # type: ignore[index]


def _advanced(first: date, frequency: str, interval_days: int | None, anchor: int) -> list[date]:
    due = datetime.combine(first, time(), tzinfo=UTC_ZONE)
    days = [first]
    for _ in range(29):
        due = advance(due, frequency, interval_days, anchor, UTC_ZONE)
        days.append(due.date())
    return days


@pytest.mark.parametrize("frequency", FREQUENCIES)
@pytest.mark.parametrize("anchor", [1, 15, 28, 29, 30, 31])
def test_rrule_repeats_as_the_schedule_advances(frequency: str, anchor: int) -> None:
    # The first due on the anchor day, or the month's last day when it is shorter.
    first = date(2027, 2, min(anchor, 28))
    rule = recurrence(frequency, None, anchor, first)
    assert rule is not None
    text = vRecur(rule).to_ical().decode()
    assert _occurrences(text, first, 30) == _advanced(first, frequency, None, anchor), text


def test_custom_interval_repeats_as_the_schedule_advances() -> None:
    first = date(2027, 1, 5)
    text = vRecur(recurrence("CUSTOM", 10, 5, first)).to_ical().decode()
    assert _occurrences(text, first, 30) == _advanced(first, "CUSTOM", 10, 5)


def test_a_due_date_off_its_anchor_starts_from_its_own_day() -> None:
    # Moved by hand to the 10th while anchored on the 31st: monthly on the 10th.
    assert recurrence("MONTHLY", None, 31, date(2027, 3, 10)) == {"FREQ": "MONTHLY"}
    assert recurrence("UNKNOWN", None, 1, date(2027, 3, 10)) is None


def test_written_calendar_parses_back() -> None:
    now = datetime(2027, 1, 1, 12, tzinfo=UTC)
    entries = [
        all_day("rfi-1", "RFI #1 due: Beam, depth; grid C", date(2027, 3, 10)),
        Entry("proposal-2", "Proposal expires", datetime(2027, 4, 1, 17, tzinfo=UTC)),
        all_day("maintenance-3", "Maintenance", date(2027, 1, 31), rrule={"FREQ": "MONTHLY"}),
    ]
    text = write(
        name="Tower A", calendar_uid="feed-9", host="example.com", entries=entries, now=now
    )
    calendar = Calendar.from_ical(text)
    assert str(calendar["X-WR-CALNAME"]) == "Tower A"
    assert calendar["REFRESH-INTERVAL"].dt == timedelta(hours=1)
    assert [str(e.uid) for e in calendar.events] == [
        "maintenance-3@example.com",
        "proposal-2@example.com",
        "rfi-1@example.com",
    ]
    rfi = calendar.events[2]
    assert str(rfi["SUMMARY"]) == "RFI #1 due: Beam, depth; grid C"
    assert rfi.start == date(2027, 3, 10)
    assert rfi.DTSTAMP == now  # noqa: SIM300
    # Written twice, the same bytes: nothing in a feed changes unless its records do.
    assert write(name="Tower A", calendar_uid="feed-9", host="example.com", entries=entries,
                 now=now) == text  # fmt: skip
