"""The browser half of the page walk (PRODUCT §18, Tests): every row of ``PAGES`` of
tests/pages/test_walk.py, at the same concrete paths, opened in Chromium at 390x844 as the
member the HTTP walk opens them as: the status the row says (after the redirects), axe-core with
no serious or critical violation and no console error (a refused script or style among them),
no request to any host but the server's, a screenshot each (``var/test-artifacts/pages/walk-*``).
One test for the whole walk: one live server, one browser context."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Browser, Request

from tests.factories import make_world
from tests.issue.helpers import create_issue
from tests.live import LiveServer
from tests.pages.browser import axe, in_chromium, open_page, shot
from tests.pages.test_walk import PAGES, concrete

# Rows that are a fragment htmx swaps into every page (the header's bell), not a document:
# axe leaves out the whole-document rules there (the layout's pages check the bell in place).
FRAGMENTS = {"/app/notifications/bell"}


def walk(browser: Browser, server: LiveServer, cookie: str, paths: dict[str, str]) -> list[str]:
    """Opens each path; returns what went wrong (every page is tried before the test fails)."""
    page = open_page(browser)
    page.context.add_cookies([{"name": "auth.session_token", "value": cookie, "url": server.url}])
    outside: list[str] = []

    def request(sent: Request) -> None:
        if urlsplit(sent.url).hostname != "127.0.0.1" and not sent.url.startswith("data:"):
            outside.append(sent.url)

    page.on("request", request)
    refused: list[str] = []  # what the page loaded that answered an error, the page aside
    page.on(
        "response",
        lambda r: r.status >= 400 and r.url != page.url and refused.append(f"{r.status} {r.url}"),
    )
    # Playwright reports no event for the favicon; Chromium's console names its URL.
    failed_loads: list[str] = []
    page.on(
        "console",
        lambda m: "Failed to load resource" in m.text and failed_loads.append(m.location["url"]),
    )
    failed: list[str] = []
    for template, path in paths.items():
        problems: list[str] = page.problems  # type: ignore[attr-defined]
        problems.clear()
        refused.clear()
        failed_loads.clear()
        answer = page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        status = answer.status if answer else None
        row = PAGES[template]
        # A redirect (303) is followed: the page it leads to must answer 200.
        if status != 200:
            failed.append(f"{path}: {status} (row says {row.member})")
        shot(page, f"walk-{template.strip('/').replace('{', '').replace('}', '') or 'app'}")
        if template in FRAGMENTS and failed_loads == [f"{server.url}/favicon.ico"]:
            # A fragment has no <link rel="icon">, so Chromium asks for /favicon.ico (the
            # layout's pages name theirs): that one failed load is not the fragment's.
            problems[:] = [p for p in problems if "status of 404" not in p]
        if refused:
            failed.append(f"{path} loaded {refused}")
        try:
            axe(page, fragment=template in FRAGMENTS)
        except AssertionError as error:
            failed.append(str(error))
    if outside:
        failed.append(f"requests left 127.0.0.1: {sorted(set(outside))}")
    return failed


async def test_every_page_in_chromium(server: LiveServer, client: httpx.AsyncClient) -> None:
    world = await make_world()
    issue = await create_issue(client, world.project.id, world.member.headers)
    paths = {t: concrete(t, world, issueId=issue["id"]) for t in PAGES}
    assert len(paths) == len(PAGES) >= 12
    failed = await in_chromium(lambda browser: walk(browser, server, world.manager.cookie, paths))
    assert failed == [], "\n".join(failed)
