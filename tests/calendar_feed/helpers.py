"""Calendar feed tests: make a feed through HTTP, fetch it, read it back with ``icalendar``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx
from icalendar import Calendar, Event

ME = "/api/v1/me/calendar-feeds"


def project_feeds(project_id: str) -> str:
    return f"/api/v1/projects/{project_id}/calendar-feeds"


async def make_feed(
    client: httpx.AsyncClient, headers: dict[str, str], project_id: str | None = None, **body: Any
) -> dict[str, Any]:
    url = ME if project_id is None else project_feeds(project_id)
    response = await client.post(url, json=body, headers=headers)
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()
    return created


def path_of(feed: dict[str, Any]) -> str:
    """The feed URL's path: the test client serves the public URL's origin."""
    return urlsplit(feed["url"]).path


async def fetch(client: httpx.AsyncClient, feed: dict[str, Any]) -> Calendar:
    """The feed, fetched with no credential at all, parsed by ``icalendar``."""
    response = await client.get(path_of(feed), headers={"Origin": ""})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/calendar; charset=utf-8"
    return Calendar.from_ical(response.content)


def by_uid(calendar: Calendar) -> dict[str, Event]:
    return {str(event.uid): event for event in calendar.events}


def rrule(event: Event) -> str | None:
    """The event's RRULE as written (``FREQ=MONTHLY``), None without one."""
    rule = event.get("RRULE")
    return None if rule is None else rule.to_ical().decode()
