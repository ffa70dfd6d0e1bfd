"""The issue page in Chromium, on a phone (390x844) and a desk (1280x800): a field edited in
place (a bad value first: its error swapped in beside it), a comment, a photo uploaded with the
progress bar; axe on each state; the outcome read back through the JSON API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from playwright.sync_api import Browser, expect

from tests.factories import Actor, make_world
from tests.issue.helpers import create_issue, issues_url
from tests.live import LiveServer, free_port
from tests.pages.browser import axe, in_chromium, open_page, shot

SIZES = {"phone": {"width": 390, "height": 844}, "desk": {"width": 1280, "height": 800}}
# Set before the upload through the DevTools protocol (not the page's CSP): whether the
# progress bar was shown with a value while the photo was sent.
WATCH_PROGRESS = """() => {
  window.progressSeen = false;
  new MutationObserver(() => {
    const bar = document.querySelector("#photos progress");
    if (bar && !bar.hidden && bar.value > 0) window.progressSeen = true;
  }).observe(document.body, {subtree: true, attributes: true, childList: true});
  const bar = () => document.querySelector("#photos progress");
  const tick = () => {
    const b = bar();
    if (b && !b.hidden && b.value > 0) window.progressSeen = true;
    if (!window.progressSeen) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """The server at its public URL (the presigned upload URLs name it)."""
    port = free_port()
    with LiveServer(env={"PLUMBLINE_PUBLIC_URL": f"http://127.0.0.1:{port}"}, port=port) as live:
        yield live


def journey(
    browser: Browser, server: LiveServer, actor: Actor, url: str, photo: Path, size: str
) -> None:
    page = open_page(browser, viewport=SIZES[size])
    page.context.add_cookies(
        [{"name": "auth.session_token", "value": actor.cookie, "url": server.url}]
    )
    page.goto(server.url + url)
    expect(page.locator("h1")).to_have_text("Leak at level 3")
    shot(page, f"issue-page-{size}")
    axe(page)

    # A bad value first: the error comes back beside the field (400 swapped in), typed kept.
    page.get_by_text("Change the title").click()
    page.locator("#f-title").fill("")
    page.locator("#field-title").get_by_role("button", name="Save").click()
    expect(page.locator("#f-title-error")).to_contain_text("Enter a title")
    # The form's answer is a 400 (swapped in): the browser logs it as a failed load.
    problems: list[str] = page.problems  # type: ignore[attr-defined]
    problems[:] = [p for p in problems if "status of 400" not in p]
    shot(page, f"issue-page-{size}-error")
    axe(page)
    page.locator("#f-title").fill("Leak at level 3, riser B")
    page.locator("#field-title").get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_have_text("Leak at level 3, riser B")

    page.locator("#field-priority summary").click()
    page.locator("#f-priority").select_option("URGENT")
    page.locator("#field-priority").get_by_role("button", name="Save").click()
    expect(page.locator("#field-priority .saved")).to_be_visible()
    expect(page.locator("#field-priority .value")).to_contain_text("Urgent")

    page.get_by_label("Add a comment").fill(f"Plumber booked <b>{size}</b>")
    page.get_by_role("button", name="Comment", exact=True).click()
    expect(page.locator("#comments .thread")).to_contain_text(f"Plumber booked <b>{size}</b>")
    expect(page.get_by_label("Add a comment")).to_have_value("")

    page.evaluate(WATCH_PROGRESS)
    page.locator("#f-photo").set_input_files(str(photo))
    expect(page.locator("#photos img")).to_have_count(1)
    assert page.evaluate("window.progressSeen"), "the progress bar never showed"
    expect(page.locator("#comments .thread li")).to_have_count(1)
    shot(page, f"issue-page-{size}-done")
    axe(page)
    page.context.close()


async def test_edit_comment_and_upload_on_a_phone_and_a_desk(
    server: LiveServer, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    world = await make_world()
    photo = tmp_path / "leak.jpg"
    Image.new("RGB", (800, 600), (40, 92, 176)).save(photo, "JPEG")
    for size in SIZES:
        issue = await create_issue(client, world.project.id, world.member.headers)
        url = f"/app/projects/{world.project.id}/issues/{issue['id']}"
        await in_chromium(
            lambda browser, url=url, size=size: journey(
                browser, server, world.member, url, photo, size
            )
        )
        api = f"{issues_url(world.project.id)}/{issue['id']}"
        read: dict[str, Any] = (await client.get(api, headers=world.member.headers)).json()
        assert read["title"] == "Leak at level 3, riser B" and read["priority"] == "URGENT"
        [uploaded] = read["referencePhotos"]
        assert uploaded["contentType"] == "image/jpeg" and uploaded["fileName"] == "leak.jpg"
        comments = (await client.get(api + "/comments", headers=world.member.headers)).json()
        assert [c["body"] for c in comments] == [f"Plumber booked <b>{size}</b>"]
