"""Live updates of the issues list over a real socket: a tab holding the project's stream
(``/app/projects/{p}/live``) hears of an issue another person creates through the create form,
as the kind the list watches (``data-live-kind="issue"``), and not of its own changes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from tests.factories import World
from tests.live import LiveServer, free_port
from tests.pages.issue_pages import form, issues

# A safety bound on waiting for the stream, never a timed assertion.
WAIT = 60


async def _changes(lines: Any, wanted: int) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    event = None
    async for line in lines:
        if line.startswith("event: "):
            event = line.removeprefix("event: ")
        elif line.startswith("data: ") and event == "change":
            seen.append(json.loads(line.removeprefix("data: ")))
            if len(seen) == wanted:
                return seen
    return seen


async def test_a_new_issue_reaches_the_open_list(world: World) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with LiveServer(env={"PLUMBLINE_PUBLIC_URL": url}, port=port):
        async with httpx.AsyncClient(base_url=url, timeout=WAIT) as http:
            page = await http.get(issues(world), headers=world.member.headers)
            assert 'data-live-kind="issue"' in page.text
            assert f'data-url="/app/projects/{world.project.id}/live"' in page.text
            live = f"/app/projects/{world.project.id}/live"
            async with http.stream("GET", live, headers=world.member.headers) as stream:
                assert stream.status_code == 200
                assert stream.headers["content-type"].startswith("text/event-stream")
                lines = stream.aiter_lines()
                async for line in lines:  # subscribed once the retry line comes
                    if line.startswith("retry:"):
                        break
                author = {**world.manager.page_headers, "Origin": url}
                made = await http.post(
                    f"{issues(world)}/new",
                    data=form(title="Seen live", submission="live-1"),
                    headers=author,
                )
                assert made.status_code == 303, made.text[:300]
                issue_id = made.headers["location"].rsplit("/", 1)[1]
                mine = {**world.member.page_headers, "Origin": url}
                moved = await http.post(
                    f"{issues(world)}/board/move",
                    data=form(issueId=issue_id, status="IN_PROGRESS"),
                    headers={**mine, "Accept": "application/json"},
                )
                assert moved.status_code == 200
                got = await asyncio.wait_for(_changes(lines, 2), WAIT)
    created, changed = got
    assert (created["resource"], created["id"], created["by"]) == (
        "issue",
        issue_id,
        world.manager.id,
    )
    # The watcher's own move comes with their id: live.js leaves it out of "N changes".
    assert (changed["id"], changed["by"]) == (issue_id, world.member.id)
