"""Getting in, in Chromium at a phone's size and a desk's: sign up, verify from the e-mail,
create a workspace and a project, the switcher by keyboard, sign out. Every page screenshotted
and checked with axe and for sideways scrolling; the outcome checked through the JSON API."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page

from plumbline.kit.ids import new_id
from tests.factories import SmtpSink, link_in
from tests.identity.helpers import STRONG, unique_email
from tests.live import LiveServer, free_port
from tests.pages.browser import axe, in_chromium, open_page, shot
from tests.pages.test_account import mail

SIZES = {"phone": {"width": 390, "height": 844}, "desk": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpSink]:
    with SmtpSink() as sink:
        yield sink


@pytest.fixture(scope="module")
def site(smtp: SmtpSink) -> Iterator[LiveServer]:
    port = free_port()
    env = {"PLUMBLINE_PUBLIC_URL": f"http://127.0.0.1:{port}", "PLUMBLINE_SMTP_URL": smtp.url}
    with LiveServer(env=env, port=port) as live:
        yield live


def checked(page: Page, name: str) -> None:
    """Screenshot, axe, and nothing wider than the window (no sideways scrolling)."""
    shot(page, f"getting-in-{name}")
    axe(page)
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"{page.url} scrolls sideways by {wide}px"


@pytest.mark.parametrize("size", sorted(SIZES))
async def test_a_new_user_gets_in_and_makes_a_workspace_and_a_project(
    site: LiveServer, smtp: SmtpSink, size: str
):
    email = unique_email("Journey").lower()
    workspace, project = f"Harbour Build {new_id()[:6]}", "Pier 4 refit"

    def drive(browser: Browser) -> None:
        page = open_page(browser, viewport=SIZES[size])
        page.goto(site.url + "/")
        page.wait_for_url("**/account/sign-in?next=%2Fapp%2F")
        checked(page, f"{size}-sign-in")
        page.get_by_role("link", name="Create an account").click()
        page.get_by_label("Your name").fill("Maya Harbour")
        page.get_by_label("E-mail address").fill(email)
        page.get_by_label("Password").fill(STRONG)
        page.get_by_role("button", name="Create account").click()
        page.wait_for_url("**/account/check-inbox**")
        assert page.locator("h1").inner_text() == "Check your inbox"
        assert email in page.locator("main").inner_text()
        checked(page, f"{size}-check-inbox")

        page.goto(link_in(mail(smtp, email, "Verify your e-mail address")))
        page.wait_for_url(site.url + "/app/workspaces/new")
        assert page.locator(".flash").inner_text() == "Your e-mail address is verified."
        checked(page, f"{size}-new-workspace")
        page.get_by_role("button", name="Create workspace").click()
        page.locator("#f-name-error").wait_for()  # the form again, its error beside the field
        assert page.get_by_label("Company or team name").get_attribute("aria-invalid") == "true"
        page.get_by_label("Company or team name").fill(workspace)
        page.get_by_role("button", name="Create workspace").click()
        page.wait_for_url(re.compile(r"/app/workspaces/(?!new)[^/]+$"))
        assert page.locator("h1").inner_text() == "Projects"
        checked(page, f"{size}-workspace-home")

        page.get_by_role("link", name="New project").first.click()
        page.wait_for_url("**/projects/new")
        page.get_by_label("Project name").fill(project)
        page.get_by_role("button", name="Create project").click()
        page.wait_for_url(re.compile(r"/app/projects/[^/]+$"))
        assert project in page.locator("main").inner_text()
        checked(page, f"{size}-project-home")

        # The switcher with the keyboard: open, the current workspace marked, Escape closes.
        summary = page.locator(".switcher > summary")
        summary.focus()
        page.keyboard.press("Enter")
        current = page.locator('.switcher a[aria-current="true"]')
        assert current.is_visible() and workspace in current.inner_text()
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.textContent")
        assert workspace in focused
        checked(page, f"{size}-switcher")
        page.keyboard.press("Escape")
        assert not current.is_visible()

        page.locator(".menu.account > summary").click()
        page.get_by_role("button", name="Sign out").click()
        page.wait_for_url("**/account/sign-in")
        assert page.locator(".flash").inner_text() == "You are signed out."
        checked(page, f"{size}-signed-out")

    await in_chromium(drive)
    with httpx.Client(base_url=site.url, headers={"Origin": site.url}, timeout=30) as http:
        signed = http.post("/api/auth/sign-in/email", json={"email": email, "password": STRONG})
        assert signed.status_code == 200 and signed.json()["user"]["emailVerified"] is True
        me = http.get("/api/v1/me").json()
        assert [(w["name"], w["role"]) for w in me["workspaces"]] == [(workspace, "SUPER_ADMIN")]
        projects = http.get(f"/api/v1/workspaces/{me['workspaces'][0]['id']}/projects").json()
        assert [p["name"] for p in projects] == [project]
