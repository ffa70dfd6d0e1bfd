"""A subscription as Outlook or Google makes it: the secret URL over a real socket, GET and
HEAD, no cookie and no header of ours."""

from __future__ import annotations

import httpx
from icalendar import Calendar

from tests.factories import World
from tests.live import LiveServer, free_port


async def test_subscribe_over_a_real_socket(world: World) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with LiveServer(env={"PLUMBLINE_PUBLIC_URL": url}, port=port):
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            created = await http.post(
                f"/api/v1/projects/{world.project.id}/calendar-feeds",
                json={"name": "Tower A site"},
                headers={**world.member.headers, "Origin": url},
            )
            assert created.status_code == 200, created.text
            feed_url = created.json()["url"]
            assert feed_url.startswith(f"{url}/api/v1/calendar/")
        # A fresh client, as a calendar app: nothing but the URL.
        async with httpx.AsyncClient(timeout=30) as app:
            head = await app.head(feed_url)
            got = await app.get(feed_url, headers={"User-Agent": "Google-Calendar-Importer"})
    assert head.status_code == 200 and head.content == b""
    assert got.status_code == 200
    for response in (head, got):
        assert response.headers["content-type"] == "text/calendar; charset=utf-8"
    assert int(head.headers["content-length"]) == len(got.content)
    calendar = Calendar.from_ical(got.content)
    assert str(calendar["X-WR-CALNAME"]) == "Tower A site"
    assert b"REFRESH-INTERVAL;VALUE=DURATION:PT1H" in got.content
