"""The proposal page in Chromium at a phone's size: accept with a drawn signature and download
the signed PDF, the same proposal accepted from two tabs, a decline, the thread; axe on every
page; the outcomes read back through the portal's JSON routes."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from playwright.sync_api import Browser, Page
from pypdf import PdfReader
from sqlalchemy import select, update

from plumbline.db import database
from plumbline.models import AuditLog, Proposal
from tests.factories import World
from tests.live import LiveServer
from tests.pages.browser import axe, in_chromium, open_page, shot
from tests.proposal.flow import sent_with_link


def page_of(api: str) -> str:
    return "/portal/proposals/" + api.rsplit("/", 1)[1]


def draw(page: Page) -> None:
    """A signature stroke across the pad with the mouse."""
    page.locator("canvas").scroll_into_view_if_needed()
    box = page.locator("canvas").bounding_box()
    assert box is not None
    x, y = box["x"], box["y"] + box["height"] / 2
    page.mouse.move(x + 20, y)
    page.mouse.down()
    for step in range(1, 25):
        page.mouse.move(x + 20 + step * 11, y + (18 if step % 2 else -18), steps=2)
    page.mouse.up()


def accept_signed(browser: Browser, url: str, downloads: Path) -> bytes:
    page = open_page(browser, accept_downloads=True)
    page.goto(url)
    assert page.locator("h1").inner_text() == "Level 3 fit-out"
    shot(page, "proposal-open")
    axe(page)
    page.get_by_label("Your full name").fill("Dana Client")
    draw(page)
    shot(page, "proposal-signing")
    page.get_by_role("button", name="Accept and sign").click()
    page.wait_for_url("**#answer")
    assert "Your acceptance is recorded" in page.locator("main").inner_text()
    shot(page, "proposal-accepted")
    axe(page)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the PDF (signed)").click()
    target = downloads / download.value.suggested_filename
    download.value.save_as(target)
    return target.read_bytes()


def accept_from_two_tabs(browser: Browser, url: str) -> None:
    """The first tab without JavaScript: no signature pad, the typed name alone signs."""
    first = open_page(browser, java_script_enabled=False)
    first.goto(url)
    assert not first.locator("[data-signature]").is_visible()
    second = open_page(browser)
    second.goto(url)
    first.get_by_label("Your full name").fill("Dana Client")
    second.get_by_label("Your full name").fill("Dana Again")
    first.get_by_role("button", name="Accept and sign").click()
    first.wait_for_url("**#answer")
    second.get_by_role("button", name="Accept and sign").click()
    second.wait_for_load_state()
    assert "answered already" in second.locator("main").inner_text()
    shot(second, "proposal-accepted-twice")
    axe(second)


def write_then_decline(browser: Browser, url: str) -> None:
    page = open_page(browser)
    page.goto(url)
    page.get_by_label("Your message").fill("Can the crew start on a Monday? <b>not bold</b>")
    page.get_by_role("button", name="Send the message").click()
    page.wait_for_url("**#messages")
    assert "<b>not bold</b>" in page.locator(".thread").inner_text()
    shot(page, "proposal-message")
    axe(page)
    page.get_by_text("Decline the proposal").click()
    page.get_by_role("button", name="Decline").click()  # no reason chosen: the browser asks
    assert page.url.endswith("#messages")
    page.get_by_label("Why are you declining?").select_option("TIMING")
    page.get_by_label("Anything you would like to add").fill("Next spring")
    shot(page, "proposal-declining")
    page.get_by_role("button", name="Decline").click()
    page.wait_for_url("**#answer")
    assert "Declined on" in page.locator("main").inner_text()
    shot(page, "proposal-declined")
    axe(page)


def expired(browser: Browser, url: str) -> None:
    page = open_page(browser)
    response = page.goto(url)
    assert response is not None and response.status == 410
    assert "This proposal has expired" in page.locator("main").inner_text()
    shot(page, "proposal-expired")
    axe(page)


async def accepted_entries(proposal_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(AuditLog).where(
            AuditLog.entity_id == proposal_id, AuditLog.action == "proposal.accepted"
        )
        return len(list((await db.execute(query)).scalars()))


async def test_accept_with_a_drawn_signature_twice_from_two_tabs_and_decline(
    client, world: World, outbox, server: LiveServer, tmp_path: Path
) -> None:
    _, signed_api = await sent_with_link(client, world, outbox)
    twice, twice_api = await sent_with_link(client, world, outbox)
    _, declined_api = await sent_with_link(client, world, outbox)
    late, expired_api = await sent_with_link(client, world, outbox)
    async with database.sessionmaker() as db:
        await db.execute(
            update(Proposal)
            .where(Proposal.id == late["id"])
            .values(valid_until=datetime(2020, 1, 1, tzinfo=UTC))
        )
        await db.commit()

    document = await in_chromium(
        lambda browser: accept_signed(browser, server.url + page_of(signed_api), tmp_path)
    )
    await in_chromium(
        lambda browser: accept_from_two_tabs(browser, server.url + page_of(twice_api))
    )
    await in_chromium(
        lambda browser: write_then_decline(browser, server.url + page_of(declined_api))
    )

    # Past its validity (the live server keeps the real time): a page saying so.
    await in_chromium(lambda browser: expired(browser, server.url + page_of(expired_api)))

    view = (await client.get(signed_api)).json()
    assert view["status"] == "ACCEPTED" and view["signerName"] == "Dana Client"
    pdf = PdfReader(io.BytesIO(document))
    assert "Dana Client" in "".join(page.extract_text() for page in pdf.pages)
    [signature] = [image for page in pdf.pages for image in page.images]
    assert signature.image is not None and signature.image.width > 100

    view = (await client.get(twice_api)).json()
    assert view["status"] == "ACCEPTED" and view["signerName"] == "Dana Client"
    assert await accepted_entries(twice["id"]) == 1

    view = (await client.get(declined_api)).json()
    assert view["status"] == "DECLINED" and view["declineReason"] == "TIMING"
    assert view["declineComment"] == "Next spring"
    messages = (await client.get(f"{declined_api}/messages")).json()
    assert [m["body"] for m in messages] == ["Can the crew start on a Monday? <b>not bold</b>"]
