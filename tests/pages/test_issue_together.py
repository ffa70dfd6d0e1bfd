"""Two people at once, in Chromium: a second browser sees the issue another person reports
appear in its open list without reloading ("1 new or changed issue — show"), and an external
contractor sees only their own work, with nothing offered that they may not do; checked
through the JSON API after."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Browser

from tests.factories import World, external
from tests.issue.helpers import create_issue, issues_url
from tests.live import LiveServer, free_port
from tests.pages.browser import axe, in_chromium, open_page, shot
from tests.pages.test_issue_journey import DESKTOP


def together(browser: Browser, url: str, project: str, cookies: dict[str, str]) -> dict[str, Any]:
    base = f"/app/projects/{project}/issues"

    def person(name: str, desktop: bool) -> Any:
        page = open_page(browser, viewport=DESKTOP) if desktop else open_page(browser)
        page.context.add_cookies(
            [{"name": "auth.session_token", "value": cookies[name], "url": url}]
        )
        return page

    watcher = person("member", desktop=True)
    with watcher.expect_response(lambda r: r.url.endswith("/live")):
        watcher.goto(f"{url}{base}")
    watcher.wait_for_timeout(500)  # the stream's subscription, just after its headers
    watcher.evaluate("window.__sameDocument = true")

    reporter = person("manager", desktop=False)
    reporter.goto(f"{url}{base}/new")
    reporter.get_by_label("Title").fill("Water coming through level 2 slab")
    reporter.get_by_role("button", name="Create issue").click()
    reporter.wait_for_url(lambda u: "/issues/" in u and not u.endswith("/new"))

    show = watcher.locator("#live-banner button")
    show.wait_for()
    banner = show.inner_text()
    shot(watcher, "issues-together-banner")
    show.click()
    watcher.locator("#results", has_text="Water coming through level 2 slab").wait_for()
    still_same = watcher.evaluate("window.__sameDocument === true")
    axe(watcher)

    contractor = person("contractor", desktop=False)
    contractor.goto(f"{url}{base}")
    listed = contractor.locator("#results").inner_text()
    shot(contractor, "issues-contractor-list")
    axe(contractor)
    contractor.get_by_role("link", name="Rough-in for panel L2").first.click()
    contractor.wait_for_url(lambda u: "/issues/" in u)
    offered_delete = contractor.get_by_text("Delete this issue").count()
    shot(contractor, "issues-contractor-page")
    axe(contractor)
    problems = [*watcher.problems, *reporter.problems, *contractor.problems]
    return {
        "banner": banner,
        "same": still_same,
        "listed": listed,
        "delete": offered_delete,
        "problems": problems,
    }


async def test_a_second_browser_sees_it_live_and_a_contractor_only_their_work(
    world: World,
) -> None:
    contractor = await external(world, "CONTRACTOR", name="Luis Contractor")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with LiveServer(env={"PLUMBLINE_PUBLIC_URL": url}, port=port):
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            headers = {**world.manager.headers, "Origin": url}
            await create_issue(
                http, world.project.id, headers, title="Rough-in for panel L2",
                assigneeId=contractor.id,
            )  # fmt: skip
            await create_issue(http, world.project.id, headers, title="Internal budget review")
            cookies = {
                "member": world.member.cookie,
                "manager": world.manager.cookie,
                "contractor": contractor.cookie,
            }

            def drive(browser: Browser) -> dict[str, Any]:
                return together(browser, url, world.project.id, cookies)

            seen = await in_chromium(drive)
            listed = (await http.get(issues_url(world.project.id), headers=headers)).json()
            theirs = (
                await http.get(issues_url(world.project.id), headers=contractor.headers)
            ).json()
    assert seen["banner"].startswith("1 ") and seen["same"] is True
    assert "Rough-in for panel L2" in seen["listed"]
    assert "Internal budget review" not in seen["listed"]
    assert "Water coming through level 2 slab" not in seen["listed"]
    assert seen["delete"] == 0 and seen["problems"] == []
    assert "Water coming through level 2 slab" in {i["title"] for i in listed}
    assert {i["title"] for i in theirs} == {"Rough-in for panel L2"}
