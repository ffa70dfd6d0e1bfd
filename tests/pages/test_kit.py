"""The page kit: the error page (in Chromium, with axe), the stylesheet's headers, the page
policy, refusals as pages while the API keeps answering JSON."""

import re

import httpx
from playwright.sync_api import Browser

from plumbline.errors import RateLimited
from plumbline.pages.kit import Brand, contrast, error_page
from tests.live import LiveServer
from tests.pages.browser import axe, in_chromium, open_page, shot


async def test_an_unknown_link_is_a_404_page_in_the_browser(server: LiveServer) -> None:
    def drive(browser: Browser) -> None:
        page = open_page(browser)
        response = page.goto(server.url + "/portal/proposals/not-a-real-token")
        assert response is not None and response.status == 404
        assert response.headers["content-type"].startswith("text/html")
        assert page.locator("h1").inner_text() == "This link doesn't lead anywhere"
        assert page.get_attribute("html", "lang") == "en"
        # The stylesheet applied under the page's own policy: the masthead's default colour.
        masthead = page.locator(".masthead").evaluate("e => getComputedStyle(e).backgroundColor")
        assert masthead == "rgb(31, 64, 104)"
        shot(page, "error-404")
        axe(page)

    await in_chromium(drive)


async def test_refusals_under_the_pages_are_pages_and_the_api_stays_json(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/portal/proposals/x<script>alert(1)</script>")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "<script>alert" not in page.text and "{" not in page.text.split("<style", 1)[0]
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["referrer-policy"] == "no-referrer"
    nowhere = await client.get("/account/no-such-page")
    assert nowhere.status_code == 404 and "<main" in nowhere.text
    wrong_method = await client.delete("/app/")
    assert wrong_method.status_code == 405 and "<h1" in wrong_method.text
    api = await client.get("/api/v1/public/proposals/not-a-real-token")
    assert api.status_code == 404 and api.json()["code"] == "NOT_FOUND"


def test_the_error_page_keeps_the_status_and_headers_and_escapes_the_message() -> None:
    refused = error_page(RateLimited("<b>slow</b> down", headers={"Retry-After": "30"}))
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "30"
    body = bytes(refused.body).decode()
    assert "Too many attempts" in body and "&lt;b&gt;slow&lt;/b&gt; down" in body


async def test_the_stylesheet_is_versioned_and_immutable(client: httpx.AsyncClient) -> None:
    page = (await client.get("/portal/proposals/unknown")).text
    href = page.split('rel="stylesheet" href="', 1)[1].split('"', 1)[0]
    assert re.fullmatch(r"/static/pages\.[0-9a-f]{16}\.css", href)
    css = await client.get(href, headers={"Accept-Encoding": "identity"})
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert "immutable" in css.headers["cache-control"]
    assert "content-encoding" not in css.headers
    packed = await client.get(href, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and packed.text == css.text
    again = await client.get(href, headers={"If-None-Match": css.headers["etag"]})
    assert again.status_code == 304
    # An older name of the file: today's content, not kept for a year.
    stale = await client.get("/static/pages.0000000000000000.css")
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    names = (
        "../kit/__init__.0000000000000000.py",
        "kit.0000000000000000.py",
        "nothing.0000000000000000.css",
        "pages.css",
        "js/%2e%2e/pages.0000000000000000.css",
        "vendor/manifest.0000000000000000.json/x",
    )
    for name in names:
        assert (await client.get(f"/static/{name}")).status_code == 404, name


def test_a_workspace_colour_reaches_css_only_as_a_valid_colour_with_aa_contrast() -> None:
    assert Brand.of("A", "w1", True, "#ffcc00").color == "#FFCC00"
    assert Brand.of("A", "w1", True, "red;}body{x").color == "#1F4068"
    assert Brand.of("A", "w1", False, None).logo is None
    assert Brand.of("A", "w1", True, None).logo == "/api/v1/public/workspaces/w1/logo"
    for color in ("#FFCC00", "#777777", "#000000", "#FFFFFF", "#1F4068", "#00FF00"):
        brand = Brand.of("A", None, False, color)
        assert contrast(brand.color, brand.on_color) >= 4.5, color
        assert contrast(brand.accent, "#FFFFFF") >= 4.5, color


def test_a_form_reports_every_field_error_at_once() -> None:
    """A missing required field does not hide the other fields' errors: the person fixes the
    whole form in one go."""
    from plumbline.pages.kit.forms import validate
    from plumbline.project.schemas import ProjectCreate

    errors = validate(
        ProjectCreate,
        {"name": "", "startDate": "not a day", "currency": "DOLLARS"},
        {"name": "Enter the project's name"},
    )
    assert isinstance(errors, dict)
    assert errors["name"] == "Enter the project's name"
    assert {"startDate", "currency"} <= set(errors)
