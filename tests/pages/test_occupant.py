"""The occupant pages in Chromium at 390x844: report a problem through an asset's link with a
photo (a file that is not one first), read the receipt, follow the request on its tracking page;
screenshots and axe on every page, the outcome checked through the JSON API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from PIL import Image
from playwright.sync_api import Browser

from plumbline.kit.ids import new_id
from tests.factories import create_asset
from tests.live import LiveServer, free_port
from tests.occupant.test_portal import make_link, ops_world
from tests.pages.browser import axe, in_chromium, open_page, shot

TITLE = "Lift 2 doors close too fast"
DESCRIPTION = "The doors caught my bag twice this morning. <script>alert(1)</script>"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """The server at the address its e-mails and receipts name (its public URL)."""
    port = free_port()
    with LiveServer(env={"PLUMBLINE_PUBLIC_URL": f"http://127.0.0.1:{port}"}, port=port) as live:
        yield live


async def test_an_occupant_reports_with_a_photo_and_follows_the_request(
    server: LiveServer, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    world = await ops_world()
    asset = await create_asset(client, world, name="Lift 2", location="Core B, ground floor")
    link = await make_link(client, world, label="Lift 2 QR code", assetId=asset["id"])
    photo = tmp_path / "lift-doors.jpg"
    Image.new("RGB", (640, 480), (176, 92, 40)).save(photo, "JPEG")
    not_a_photo = tmp_path / "notes.png"
    not_a_photo.write_text("<html>not a photo</html>")
    email = f"riley-{new_id()}@example.com"

    def report(browser: Browser) -> str:
        page = open_page(browser)
        page.goto(f"{server.url}/portal/occupant/{link['token']}")
        assert page.locator("h1").inner_text() == "Report a problem with Lift 2"
        assert "Core B, ground floor" in page.locator(".asset").inner_text()
        shot(page, "occupant-1-form")
        axe(page)
        page.set_viewport_size({"width": 360, "height": 740})
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.set_viewport_size({"width": 390, "height": 844})

        page.get_by_label("In a few words").fill(TITLE)
        page.get_by_label("What happened").fill(DESCRIPTION)
        page.get_by_label("Where exactly").fill("Ground floor lobby")
        page.get_by_label("Your name").fill("Riley Reporter")
        page.get_by_label("Your e-mail").fill(email)
        page.get_by_label("Photos").set_input_files(not_a_photo)
        with page.expect_response(lambda r: r.request.method == "POST") as refused:
            page.get_by_role("button", name="Send the request").click()
        assert refused.value.status == 400
        page.problems.clear()  # type: ignore[attr-defined]  # the document's own 400, logged
        # The form again: the error tied to the field, what was typed kept.
        error = page.locator("#f-photos-error")
        assert "notes.png is not a photo" in error.inner_text()
        assert "photos-error" in (page.get_attribute("#f-photos", "aria-describedby") or "")
        assert page.get_by_label("In a few words").input_value() == TITLE
        assert page.get_by_label("What happened").input_value() == DESCRIPTION
        shot(page, "occupant-2-form-refused")
        axe(page)

        page.get_by_label("Photos").set_input_files(photo)
        page.get_by_role("button", name="Send the request").click()
        assert page.locator("h1").inner_text() == "Thank you, we've received your request"
        assert email in page.locator("main").inner_text()
        shot(page, "occupant-3-receipt")
        axe(page)
        page.set_viewport_size(
            {"width": 360, "height": 740}
        )  # usable at 360 px: no sideways scroll
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.set_viewport_size({"width": 390, "height": 844})

        page.get_by_role("link", name="See the status").click()
        assert page.locator("h1").inner_text() == TITLE
        assert page.locator(".badge").inner_text() == "Received"
        shot(page, "occupant-4-tracking")
        axe(page)
        return page.url

    tracking = await in_chromium(report)
    assert tracking.startswith(f"{server.url}/portal/requests/")

    # Through the JSON API: one OCCUPANT issue on the asset, with the photo as it was sent.
    base = f"/api/v1/projects/{world.project.id}/issues"
    listed = await client.get(base, params={"issueKind": "OCCUPANT"}, headers=world.member.headers)
    [issue] = listed.json()
    assert (issue["title"], issue["description"]) == (TITLE, DESCRIPTION)
    assert (issue["assetId"], issue["location"]) == (asset["id"], "Ground floor lobby")
    one = (await client.get(f"{base}/{issue['id']}", headers=world.member.headers)).json()
    [stored] = one["referencePhotos"]
    assert (stored["fileName"], stored["contentType"]) == ("lift-doors.jpg", "image/jpeg")
    assert (await client.get(stored["url"])).content == photo.read_bytes()

    # The team starts on it; the tracking page follows.
    started = await client.patch(
        f"{base}/{issue['id']}", json={"status": "IN_PROGRESS"}, headers=world.manager.headers
    )
    assert started.status_code == 200, started.text

    def follow(browser: Browser) -> None:
        page = open_page(browser)
        page.goto(tracking)
        assert page.locator(".badge").inner_text() == "In progress"
        assert page.locator("[aria-current=step]").inner_text() == "In progress"
        assert "In progress" in page.locator(".timeline").inner_text()
        shot(page, "occupant-5-tracking-in-progress")
        axe(page)

    await in_chromium(follow)
