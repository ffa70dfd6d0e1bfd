"""The proposal page over HTTP (no browser): what it shows, its forms and every refusal as a
page; outcomes checked through the portal's JSON routes."""

from __future__ import annotations

import asyncio
import base64
import io
import re
from datetime import UTC, datetime

import httpx
from pypdf import PdfReader

from plumbline.kit import clock
from plumbline.kit.ids import new_id
from tests.factories import World, audit_entries, set_workspace
from tests.proposal.flow import data_url, png, sent_with_link

NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def page_of(api_path: str) -> str:
    return "/portal/proposals/" + api_path.rsplit("/", 1)[1]


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


async def opened(client: httpx.AsyncClient, world: World, outbox, **extra) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """A sent proposal's page opened once: (page path, API path, the form's CSRF value)."""
    clock.set_now(NOW)
    _, api = await sent_with_link(client, world, outbox, **extra)
    page = await client.get(page_of(api))
    assert page.status_code == 200, page.text
    return page_of(api), api, csrf(page.text)


async def status_of(client: httpx.AsyncClient, api: str) -> dict:  # type: ignore[type-arg]
    return (await client.get(api)).json()  # type: ignore[no-any-return]


async def test_the_page_shows_the_offer_and_its_first_open_is_the_view(client, world, outbox):
    clock.set_now(NOW)
    _, api = await sent_with_link(
        client, world, outbox, clientCompany="Harbor View", discount="5.00", taxPercent="10"
    )
    assert (await status_of(client, api))["status"] == "SENT"
    page = await client.get(page_of(api))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    for shown in ("Level 3 fit-out", "Drywall", "Dana Client", "Harbor View", "31 Dec 2026"):
        assert shown in html, shown
    assert "$125.00" in html or "USD 125.00" in html or "125.00" in html
    assert "Awaiting your answer" in html and world.workspace.name in html
    assert f'href="{page_of(api)}/pdf"' in html
    assert (await status_of(client, api))["status"] == "VIEWED"
    again = await client.get(page_of(api))
    assert again.status_code == 200 and (await status_of(client, api))["status"] == "VIEWED"


async def test_accept_by_typed_name_alone_then_a_second_accept_changes_nothing(
    client, world, outbox
):
    page, api, token = await opened(client, world, outbox)
    sent = await client.post(f"{page}/accept", data={"csrf": token, "signerName": "Dana Client"})
    assert sent.status_code == 303
    assert sent.headers["location"] == f"{page}#answer"  # what it did: a flash message
    after = await client.get(sent.headers["location"])
    assert "Your acceptance is recorded" in after.text
    signed = "Accepted on Nov 23, 2026, signed by Dana Client. You can download the signed PDF.</p>"
    assert signed in after.text
    assert 'action="' + page + '/accept"' not in after.text  # no answer form any more
    view = await status_of(client, api)
    assert view["status"] == "ACCEPTED" and view["signerName"] == "Dana Client"
    # The other tab, still showing the form, accepts again: a page saying so, nothing changed.
    twice = await client.post(f"{page}/accept", data={"csrf": token, "signerName": "Someone Else"})
    assert twice.status_code == 409 and "answered already" in twice.text
    assert (await status_of(client, api))["signerName"] == "Dana Client"


async def test_a_refused_form_says_which_field_and_keeps_what_was_typed(client, world, outbox):
    page, api, token = await opened(client, world, outbox)
    blank = await client.post(f"{page}/accept", data={"csrf": token, "signerName": "  "})
    assert blank.status_code == 400
    assert '<input id="accept-signerName" name="signerName" type="text" required' in blank.text
    assert 'aria-invalid="true" aria-describedby="accept-signerName-error"' in blank.text
    assert 'id="accept-signerName-error">Type your full name' in blank.text
    for signature in ("data:image/png;base64,AAAA", "data:text/html;base64,PHNjcmlwdD4=", "x"):
        refused = await client.post(
            f"{page}/accept",
            data={"csrf": token, "signerName": "<b>Dana</b>", "signature": signature},
        )
        assert refused.status_code == 400, signature
        assert 'id="signature-error">The drawn signature could not be read' in refused.text
        assert 'value="&lt;b&gt;Dana&lt;/b&gt;"' in refused.text
    decline = await client.post(f"{page}/decline", data={"csrf": token, "reason": "CHEAPER"})
    assert decline.status_code == 400 and '<details class="more" open>' in decline.text
    assert 'id="decline-reason-error">Choose the reason' in decline.text
    assert (await status_of(client, api))["status"] == "VIEWED"


async def test_decline_request_changes_and_messages(client, world, outbox):
    page, api, token = await opened(client, world, outbox)
    script = "<script>alert('x')</script>"
    said = await client.post(f"{page}/messages", data={"csrf": token, "body": f"Hi {script}"})
    assert said.status_code == 303 and said.headers["location"].endswith("#messages")
    shown = await client.get(said.headers["location"])
    assert "Hi &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in shown.text
    assert script not in shown.text
    declined = await client.post(
        f"{page}/decline", data={"csrf": token, "reason": "TIMING", "comment": "Next year"}
    )
    assert declined.status_code == 303
    view = await status_of(client, api)
    assert view["status"] == "DECLINED" and view["declineReason"] == "TIMING"
    assert view["declineComment"] == "Next year"
    closed = await client.post(f"{page}/messages", data={"csrf": token, "body": "Still there?"})
    assert closed.status_code == 409 and "conversation on this proposal is closed" in closed.text

    other, other_api, other_token = await opened(client, world, outbox)
    asked = await client.post(
        f"{other}/request-changes", data={"csrf": other_token, "comment": "Split phase 2"}
    )
    assert asked.status_code == 303
    view = await status_of(client, other_api)
    assert view["status"] == "CHANGES_REQUESTED"
    assert view["changeRequestComment"] == "Split phase 2"


async def test_a_form_without_its_csrf_value_is_refused_and_changes_nothing(client, world, outbox):
    page, api, token = await opened(client, world, outbox)
    for data in ({"signerName": "Dana"}, {"signerName": "Dana", "csrf": "forged"}):
        refused = await client.post(f"{page}/accept", data=data)
        assert refused.status_code == 403 and "<h1" in refused.text, refused.text
    json_body = await client.post(f"{page}/accept", json={"signerName": "Dana", "csrf": token})
    assert json_body.status_code == 400 and "<h1" in json_body.text
    client.cookies.clear()
    no_cookie = await client.post(f"{page}/accept", data={"signerName": "Dana", "csrf": token})
    assert no_cookie.status_code == 403
    assert (await status_of(client, api))["status"] == "VIEWED"


async def test_unknown_expired_and_rate_limited_links_are_pages(client, world, outbox):
    unknown = await client.get(f"/portal/proposals/{new_id()}")
    assert unknown.status_code == 404 and "does not exist or was replaced" in unknown.text
    page, api, _ = await opened(client, world, outbox, validUntil="2026-11-24T00:00:00Z")
    clock.set_now(datetime(2026, 11, 24, tzinfo=UTC))
    expired = await client.get(page)
    assert expired.status_code == 410 and "This proposal has expired" in expired.text
    assert world.workspace.name in expired.text  # the sender's branding, even refused
    assert expired.headers["content-type"].startswith("text/html")
    clock.set_now(NOW)
    for _ in range(29):  # 30 a minute per token, the page's requests counted with the API's
        await client.get(f"{api}")
    limited = await client.get(page)
    assert limited.status_code == 429 and "Too many attempts" in limited.text
    assert int(limited.headers["retry-after"]) >= 1


async def test_the_pdf_download_carries_the_signature_once_accepted(client, world, outbox):
    page, _, token = await opened(client, world, outbox)
    before = await client.get(f"{page}/pdf")
    assert before.status_code == 200 and before.headers["content-type"] == "application/pdf"
    assert before.headers["content-disposition"].startswith('attachment; filename="PROP-')
    signature = data_url(png(40, 20))
    accepted = await client.post(
        f"{page}/accept", data={"csrf": token, "signerName": "Dana Client", "signature": signature}
    )
    assert accepted.status_code == 303
    signed = PdfReader(io.BytesIO((await client.get(f"{page}/pdf")).content))
    text = "".join(p.extract_text() for p in signed.pages)
    assert "Dana Client" in text
    images = [image.data for p in signed.pages for image in p.images]
    assert len(images) == 1 and base64.b64encode(images[0])


async def test_two_tabs_accepting_at_once_accept_once(client, world, outbox):
    clock.set_now(NOW)
    proposal, api = await sent_with_link(client, world, outbox)
    page = page_of(api)
    token = csrf((await client.get(page)).text)
    answers = await asyncio.gather(
        *(
            client.post(f"{page}/accept", data={"csrf": token, "signerName": name})
            for name in ("First Tab", "Second Tab")
        )
    )
    assert sorted(a.status_code for a in answers) == [303, 409], [a.text for a in answers]
    winner = next(a for a in answers if a.status_code == 303)
    view = await status_of(client, api)
    assert view["status"] == "ACCEPTED"
    assert view["signerName"] == ("First Tab" if winner is answers[0] else "Second Tab")
    accepted = [e for e in await audit_entries(proposal["id"]) if e.action == "proposal.accepted"]
    assert len(accepted) == 1


async def test_the_workspace_name_logo_and_colour_head_the_page(client, world, outbox):
    await set_workspace(
        world.workspace.id, name="Brand & Sons", logo_key="ws/x/logo.png", primary_color="#ffcc00"
    )
    page, _, _ = await opened(client, world, outbox)
    html = (await client.get(page)).text
    assert "Brand &amp; Sons" in html
    assert f'src="/api/v1/public/workspaces/{world.workspace.id}/logo"' in html
    assert "--brand:#FFCC00;--on-brand:#000000;--accent:#1F4068" in html


async def test_an_oversized_form_is_a_413_page_and_changes_nothing(client, world, outbox):
    page, api, token = await opened(client, world, outbox)
    huge = "data:image/png;base64," + "A" * (2 * 1024 * 1024)
    refused = await client.post(
        f"{page}/accept", data={"csrf": token, "signerName": "Dana", "signature": huge}
    )
    assert refused.status_code == 413 and "That was too large to send" in refused.text
    assert refused.headers["content-type"].startswith("text/html")
    assert (await status_of(client, api))["status"] == "VIEWED"


async def test_a_withdrawn_proposal_says_so(client, world, outbox):
    clock.set_now(NOW)
    proposal, api = await sent_with_link(client, world, outbox)
    page = page_of(api)
    assert (await client.get(page)).status_code == 200
    gone = await client.delete(
        f"/api/v1/projects/{world.project.id}/proposals/{proposal['id']}",
        headers=world.admin.headers,
    )
    assert gone.status_code == 200, gone.text
    withdrawn = await client.get(page)
    assert withdrawn.status_code == 404 and "the sender withdrew the proposal" in withdrawn.text
    assert withdrawn.headers["content-type"].startswith("text/html")


async def test_the_language_cookie_chooses_the_pages_language(client, world, outbox):
    page, _, _ = await opened(client, world, outbox)
    client.cookies.set("plumbline_lang", "es")
    try:
        chosen = await client.get(page, headers={"Accept-Language": "en"})
    finally:
        client.cookies.delete("plumbline_lang")
    assert chosen.status_code == 200 and '<html lang="es">' in chosen.text
    assert '<html lang="en">' in (await client.get(page)).text
