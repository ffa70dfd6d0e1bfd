"""Any text a user typed makes a valid feed (issue 40 item 1): line breaks are kept as TEXT's
escaped ``\\n``, other control characters are dropped, and the rest reads back as written."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, date, datetime
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import Calendar

from plumbline.calendar_feed import entries
from plumbline.calendar_feed.ics import all_day, write
from tests.calendar_feed.helpers import make_feed, path_of
from tests.factories import World, create_user, set_project

NOW = datetime(2027, 1, 1, 12, tzinfo=UTC)
BREAKS = ("\r\n", "\r", "\n", "\x85", "\u2028", "\u2029")
# Written apart from the code under test: what a reader should see of ``value``.
_TEXT_ESCAPE = re.compile(r"\\([\\;,nN])")


def expected(value: str) -> str:
    """Each line break one newline; every other control character (and lone surrogate) gone."""
    for brk in BREAKS:
        value = value.replace(brk, "\n")
    return "".join(c for c in value if c in "\t\n" or unicodedata.category(c) not in ("Cc", "Cs"))


def unescaped(raw: Any) -> str:
    """A TEXT value as RFC 5545 reads it, for properties ``icalendar`` leaves escaped (NAME,
    X-WR-CALNAME)."""
    text = raw.to_ical().decode() if hasattr(raw, "to_ical") else str(raw)
    return _TEXT_ESCAPE.sub(lambda m: "\n" if m[1] in "nN" else m[1], text)


def assert_valid(body: bytes) -> Calendar:
    """Content lines of at most 75 octets, CRLF-ended, without a control character but HTAB."""
    assert body.endswith(b"\r\n")
    for line in body[:-2].split(b"\r\n"):
        assert len(line) <= 75, line
        assert not re.search(rb"[\x00-\x08\x0a-\x1f\x7f]", line), line
        decoded = line.decode("utf-8")
        assert not re.search("[\x80-\x9f\u2028\u2029]", decoded), line
    return Calendar.from_ical(body)


# Arbitrary text, with line breaks, controls and TEXT's own special characters mixed in.
TRICKY = st.sampled_from(
    [*BREAKS, "\x00", "\t", "\x0b", "\x0c", "\x1b", "\x7f", "\x9f", "\ud800", "\\", "\\N",
     "\\n", ";", ",", ":", '"', "é", "漢", "🏗"]
)  # fmt: skip
TEXTS = st.lists(st.one_of(st.characters(), TRICKY), max_size=120).map("".join)


@given(name=TEXTS, summary=TEXTS, description=TEXTS, location=TEXTS, uid=TEXTS)
@settings(max_examples=300, deadline=None)
def test_any_text_round_trips(
    name: str, summary: str, description: str, location: str, uid: str
) -> None:
    entry = all_day(
        f"task-{uid}", summary, date(2027, 3, 10), description=description, location=location
    )
    body = write(name=name, calendar_uid="feed-1", host="example.com", entries=[entry], now=NOW)
    calendar = assert_valid(body)
    assert unescaped(calendar["X-WR-CALNAME"]) == expected(name)
    assert unescaped(calendar["NAME"]) == expected(name)
    [event] = calendar.events
    assert str(event["UID"]) == expected(f"task-{uid}@example.com")
    assert str(event.get("SUMMARY", "")) == expected(summary)
    assert str(event.get("DESCRIPTION", "")) == expected(description)
    assert str(event.get("LOCATION", "")) == expected(location)


ZONES = {"p1": ZoneInfo("UTC")}


def _row(**values: Any) -> SimpleNamespace:
    common = {"id": "r1", "project_id": "p1", "updated_at": NOW, "priority": "HIGH"}
    return SimpleNamespace(**common | values)


@given(title=TEXTS, location=TEXTS, status=TEXTS, task_id=TEXTS, tag=TEXTS)
@settings(max_examples=100, deadline=None)
def test_records_of_any_text_make_a_valid_feed(
    title: str, location: str, status: str, task_id: str, tag: str
) -> None:
    """The same through the rows of each kind (``entries``), whose texts join several columns."""
    day = date(2027, 3, 1)
    issue = _row(issue_kind="ISSUE", number=1, title=title, due_date=day, status=status,
                 location=location)  # fmt: skip
    maintenance = _row(next_due_at=NOW, meter_due_at=None, meter_type=None, frequency="MONTHLY",
                       interval_days=None, anchor_day=1, title=title, tag=tag, asset_name=title,
                       location=location)  # fmt: skip
    task = _row(id=task_id, name=title, is_milestone=False, start_date=NOW, end_date=NOW,
                status=status, progress_percent=5)  # fmt: skip
    events = [
        *entries.issues([issue], ZONES),
        *entries.maintenance([maintenance], ZONES),
        *entries.tasks([task], ZONES),
    ]
    body = write(name=title, calendar_uid="feed-1", host="example.com", entries=events, now=NOW)
    by_uid = {str(e["UID"]): e for e in assert_valid(body).events}
    issue_event = by_uid["issue-r1@example.com"]
    assert str(issue_event["SUMMARY"]) == expected(f"Issue #1 due: {title}")
    assert str(issue_event.get("LOCATION", "")) == expected(location)
    about = str(by_uid["maintenance-r1@example.com"]["DESCRIPTION"])
    assert about.startswith(expected(f"Asset: {tag} {title}\nFrequency: MONTHLY"))
    assert expected(f"task-p1-{task_id}@example.com") in by_uid


def test_text_escapes_as_rfc_5545_says() -> None:
    entry = all_day("rfi-1", "C:\\Notes\\new; a, b\r\nnext", date(2027, 3, 10))
    body = write(name="A\\N, B", calendar_uid="feed-1", host="example.com", entries=[entry],
                 now=NOW)  # fmt: skip
    assert b"SUMMARY:C:\\\\Notes\\\\new\\; a\\, b\\nnext\r\n" in body
    assert b"X-WR-CALNAME:A\\\\N\\, B\r\n" in body


async def _both(client: httpx.AsyncClient, feed: dict[str, Any]) -> Calendar:
    """GET and HEAD of the feed: both answer, and the GET's body is a valid calendar."""
    head = await client.head(path_of(feed), headers={"Origin": ""})
    assert head.status_code == 200, head.text
    response = await client.get(path_of(feed), headers={"Origin": ""})
    assert response.status_code == 200, response.text
    assert head.headers["content-length"] == str(len(response.content))
    return assert_valid(response.content)


async def test_feeds_named_with_line_breaks_answer(client: httpx.AsyncClient, world: World) -> None:
    named = await make_feed(client, world.member.headers, world.project.id, name="Site\ndiary")
    assert unescaped((await _both(client, named))["X-WR-CALNAME"]) == "Site\ndiary"

    mine = await make_feed(client, world.member.headers, name="Mine\r\nall\u2028mine\x07")
    assert unescaped((await _both(client, mine))["X-WR-CALNAME"]) == "Mine\nall\nmine"

    # A project's name is its feed's default name.
    await set_project(world.project.id, name="Tower\nA\x1b")
    default = await make_feed(client, world.member.headers, world.project.id)
    assert default["name"] == "Tower\nA\x1b"
    assert unescaped((await _both(client, default))["NAME"]) == "Tower\nA"

    # And a user's name is their personal feed's.
    user = await create_user(name="Line\nbreak")
    theirs = await make_feed(client, user.headers)
    assert unescaped((await _both(client, theirs))["X-WR-CALNAME"]) == "Line\nbreak: due dates"
