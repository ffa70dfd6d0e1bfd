"""The account pages in Chromium, at a phone's size: reset a password from the e-mail's link and
sign in with it; accept an e-mail invite as a new user. The e-mails are read from a real SMTP
sink, every page is screenshotted and checked with axe, the outcomes through the JSON API."""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.message import EmailMessage

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.factories import SmtpSink, World, link_in, make_world
from tests.identity.helpers import COOKIE, STRONG, unique_email
from tests.live import LiveServer, free_port
from tests.pages.browser import axe, in_chromium, open_page, shot

NEW = "Brand-New-Pass1!"
MAIL_WAIT = 60  # seconds: a bound on the inline mail job, never a timed assertion


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpSink]:
    with SmtpSink() as sink:
        yield sink


@pytest.fixture(scope="module")
def site(smtp: SmtpSink) -> Iterator[LiveServer]:
    """A server whose public URL is its own (the forms' origin check, the e-mails' links),
    sending its e-mail to the sink."""
    port = free_port()
    env = {"PLUMBLINE_PUBLIC_URL": f"http://127.0.0.1:{port}", "PLUMBLINE_SMTP_URL": smtp.url}
    with LiveServer(env=env, port=port) as live:
        yield live


def mail(smtp: SmtpSink, to: str, subject: str) -> EmailMessage:
    """The newest message to ``to`` whose subject holds ``subject``, once it arrives."""
    deadline = time.monotonic() + MAIL_WAIT
    while time.monotonic() < deadline:
        found = [m for m in smtp.mails(to) if subject in str(m["Subject"])]
        if found:
            return found[-1]
        time.sleep(0.1)
    raise AssertionError(f"no {subject!r} e-mail to {to}")


def checked(page: Page, name: str, *, refused: bool = False) -> None:
    """Screenshot and axe; ``refused``: the document's own 4xx status, which Chromium logs."""
    if refused:
        problems: list[str] = page.problems  # type: ignore[attr-defined]
        assert [p for p in problems if "status of 4" not in p] == [], problems
        problems.clear()
    shot(page, f"account-{name}")
    axe(page)


def api(site: LiveServer) -> httpx.Client:
    return httpx.Client(base_url=site.url, headers={"Origin": site.url}, timeout=30)


async def test_reset_a_password_from_the_mail_and_sign_in(site: LiveServer, smtp: SmtpSink):
    email = unique_email("Reset").lower()
    with api(site) as http:
        made = http.post(
            "/api/auth/sign-up/email",
            json={"name": "Rae Setter", "email": email, "password": STRONG},
        )
        assert made.status_code == 200, made.text

    def drive(browser: Browser) -> None:
        page = open_page(browser)
        page.goto(site.url + "/account/sign-in")
        checked(page, "sign-in")
        page.get_by_role("link", name="Forgot your password?").click()
        page.get_by_label("E-mail address").fill(email)
        checked(page, "forgot-password")
        page.get_by_role("button", name="Send the link").click()
        assert page.locator("h1").inner_text() == "Check your inbox"
        checked(page, "forgot-password-sent")

        link = link_in(mail(smtp, email, "Reset your password"))
        assert link.startswith(site.url + "/account/reset-password?token=")
        page.goto(link)
        checked(page, "reset-password")
        page.get_by_label("New password", exact=True).fill(NEW)
        page.get_by_label("New password again").fill(NEW + "?")
        page.get_by_role("button", name="Change password").click()
        error = page.locator("#f-confirmPassword-error")
        assert error.inner_text() == "The two passwords are not the same"
        assert page.get_by_label("New password again").get_attribute("aria-invalid") == "true"
        checked(page, "reset-password-mismatch", refused=True)
        page.get_by_label("New password", exact=True).fill(NEW)
        page.get_by_label("New password again").fill(NEW)
        page.get_by_role("button", name="Change password").click()
        assert page.locator("h1").inner_text() == "Your password has been changed"
        checked(page, "reset-password-done")

        page.get_by_role("link", name="Sign in").click()
        page.get_by_label("E-mail address").fill(email)
        page.get_by_label("Password").fill(NEW)
        page.get_by_role("button", name="Sign in").click()
        # Into the app: a person without a workspace is asked to create one.
        page.wait_for_url(site.url + "/app/workspaces/new")
        assert page.locator("h1").inner_text() == "Create a workspace"
        checked(page, "first-workspace")

        used = open_page(browser)
        used.goto(link)
        assert used.locator("h1").inner_text() == "This link has already been used"
        checked(used, "reset-password-used", refused=True)

    await in_chromium(drive)
    with api(site) as http:
        old = http.post("/api/auth/sign-in/email", json={"email": email, "password": STRONG})
        assert old.status_code == 401
        new = http.post("/api/auth/sign-in/email", json={"email": email, "password": NEW})
        assert new.status_code == 200 and new.json()["user"]["emailVerified"] is True


async def test_accept_an_email_invite_as_a_new_user(site: LiveServer, smtp: SmtpSink):
    world: World = await make_world()
    email = unique_email("Invited").lower()
    with api(site) as http:
        sent = http.post(
            f"/api/v1/workspaces/{world.workspace.id}/email-invites",
            json={"email": email, "role": "MEMBER"},
            headers=world.admin.headers,
        )
        assert sent.status_code == 200, sent.text

    def drive(browser: Browser) -> list[dict[str, object]]:
        page = open_page(browser)
        link = link_in(mail(smtp, email, "invited you to"))
        assert link.startswith(site.url + "/account/invite/")
        page.goto(link)
        assert page.locator("h1").inner_text() == f"Join {world.workspace.name} on Plumbline"
        checked(page, "invite")
        page.get_by_role("link", name="Create an account").click()
        assert page.get_by_label("E-mail address").input_value() == email
        page.get_by_label("Your name").fill("Ina <b>Vited</b>")
        page.get_by_label("Password").fill("weak")
        page.get_by_role("button", name="Create account").click()
        assert page.get_by_label("Password").get_attribute("aria-invalid") == "true"
        checked(page, "sign-up-errors", refused=True)
        page.get_by_label("Password").fill(STRONG)
        page.get_by_role("button", name="Create account").click()
        page.wait_for_url(link)
        checked(page, "invite-signed-in")

        verify = link_in(mail(smtp, email, "Verify your e-mail address"))
        assert verify.startswith(site.url + "/account/verify-email?token=")
        page.goto(verify)
        page.wait_for_url(site.url + "/app/workspaces/new")
        assert page.locator(".flash").inner_text() == "Your e-mail address is verified."
        checked(page, "verified")

        page.goto(link)
        page.get_by_role("button", name=f"Accept and join {world.workspace.name}").click()
        page.wait_for_url(site.url + f"/app/workspaces/{world.workspace.id}")
        assert f"You have joined {world.workspace.name}" in page.locator(".flash").inner_text()
        checked(page, "invite-accepted")
        page.goto(site.url + "/account/")
        assert world.workspace.name in page.locator(".workspaces").inner_text()
        assert "Ina <b>Vited</b>" in page.locator("h1").inner_text()  # typed, shown escaped
        checked(page, "home-member")
        return page.context.cookies()

    cookies = await in_chromium(drive)
    [session] = [c["value"] for c in cookies if c["name"] == COOKIE]
    with api(site) as http:
        me = http.get("/api/v1/me", headers={"Cookie": f"{COOKIE}={session}"}).json()
        assert me["user"]["email"] == email
        assert [(w["id"], w["role"]) for w in me["workspaces"]] == [(world.workspace.id, "MEMBER")]
        invites = http.get(
            f"/api/v1/workspaces/{world.workspace.id}/email-invites", headers=world.admin.headers
        ).json()
        assert [i["acceptedAt"] is not None for i in invites if i["email"] == email] == [True]
