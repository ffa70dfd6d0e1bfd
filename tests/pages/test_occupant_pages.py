"""The occupant pages over plain HTTP: the form's refusals (fields, photos, CSRF, a stale form),
a form sent twice, wrong, expired and withdrawn links, the 429 page, escaping, and photos stored
as the JSON path stores them."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, update

from plumbline.authz.plans import STORAGE_QUOTA
from plumbline.config import settings
from plumbline.db import database
from plumbline.issue.photos import PHOTOS
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Attachment, OccupantRequest, Workspace
from tests.factories import World, create_asset, link_in, read_mails, set_project
from tests.occupant.test_portal import NOW, PNG, issue_count, links_url, make_link, ops_world

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 200
SCRIPT = "<script>alert(1)</script>"


def page_url(token: str) -> str:
    return f"/portal/occupant/{token}"


def hidden(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found, html
    return found.group(1)


async def open_form(client: httpx.AsyncClient, token: str) -> dict[str, str]:
    """The form's hidden fields (the CSRF cookie lands in the client's jar)."""
    page = await client.get(page_url(token))
    assert page.status_code == 200, page.text
    assert page.headers["content-type"].startswith("text/html")
    return {"csrf": hidden(page.text, "csrf"), "key": hidden(page.text, "key")}


def fields(email: str, **change: str) -> dict[str, str]:
    return {
        "title": "Leaking tap in the 3rd floor kitchen",
        "description": "Water drips from the hot tap all day.",
        "location": "Kitchen, level 3",
        "name": "Riley Reporter",
        "email": email,
    } | change


async def send(
    client: httpx.AsyncClient,
    token: str,
    form: dict[str, str],
    photos: list[tuple[str, bytes, str]] | None = None,
    **change: str,
) -> httpx.Response:
    email = change.pop("email", f"riley-{new_id()}@example.com")
    files: Any = [("photos", photo) for photo in photos or []] or None
    return await client.post(page_url(token), data=form | fields(email, **change), files=files)


async def requests_of(world: World) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(OccupantRequest.project_id == world.project.id)
        return int((await db.execute(query)).scalar_one())


async def attachments_of(world: World) -> list[Attachment]:
    async with database.sessionmaker() as db:
        query = select(Attachment).where(Attachment.project_id == world.project.id)
        return list((await db.execute(query)).scalars())


def tracking_link(html: str) -> str:
    found = re.search(r'href="https?://[^/"]+(/portal/requests/[A-Za-z0-9_-]+)"', html)
    assert found, html
    return found.group(1)


async def test_the_form_names_the_building_and_the_asset(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    asset = await create_asset(client, world, name=f"Chiller {SCRIPT}", location="Roof")
    link = await make_link(client, world, assetId=asset["id"])
    async with database.sessionmaker() as db:  # the workspace's colour, as its PDFs use it
        change = update(Workspace).where(Workspace.id == world.workspace.id)
        await db.execute(change.values(primary_color="#0f766e"))
        await db.commit()
    page = await client.get(page_url(link["token"]))
    assert page.status_code == 200
    assert "--brand:#0F766E" in page.text
    assert world.project.name in page.text and world.workspace.name in page.text
    assert asset["tag"] in page.text and "Roof" in page.text
    assert SCRIPT not in page.text and "Chiller &lt;script&gt;" in page.text
    assert page.headers["cache-control"] == "no-store"
    assert "plumbline_csrf=" in page.headers["set-cookie"]
    for field in ("title", "description", "location", "name", "email", "photos"):
        assert f'<label for="f-{field}">' in page.text and f'id="f-{field}"' in page.text


async def test_a_report_with_photos_makes_one_request_and_a_receipt(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    email = f"riley-{new_id()}@example.com"
    photos = [("tap.png", PNG, "image/png"), ("leak", JPEG, "application/octet-stream")]
    sent = await send(client, link["token"], form, photos, email=email)
    assert sent.status_code == 200, sent.text
    assert "received your request" in sent.text and email in sent.text
    tracking = tracking_link(sent.text)
    # The same link the receipt e-mail carries.
    [mail] = read_mails(outbox, to=email)
    assert link_in(mail).endswith(tracking)
    listed = await client.get(
        f"/api/v1/projects/{world.project.id}/issues",
        params={"issueKind": "OCCUPANT"},
        headers=world.member.headers,
    )
    [issue] = listed.json()
    assert issue["location"] == "Kitchen, level 3"
    # Stored as the JSON path stores photos; each one's type is what its bytes say.
    stored = sorted(await attachments_of(world), key=lambda a: a.file_name)
    assert [(a.file_name, a.content_type, a.size_bytes) for a in stored] == [
        ("leak", "image/jpeg", len(JPEG)),
        ("tap.png", "image/png", len(PNG)),
    ]
    assert {a.entity_id for a in stored} == {issue["id"]}
    page = await client.get(tracking)
    assert page.status_code == 200 and "Leaking tap in the 3rd floor kitchen" in page.text
    assert "Received" in page.text


async def test_a_form_sent_twice_makes_one_request(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    first = await send(client, link["token"], form, [("tap.png", PNG, "image/png")])
    again = await send(client, link["token"], form, [("tap.png", PNG, "image/png")])
    assert (first.status_code, again.status_code) == (200, 200)
    assert "We already have this request" in again.text
    assert tracking_link(again.text) == tracking_link(first.text)
    assert await issue_count(world.project.id) == 1 and await requests_of(world) == 1
    assert len(await attachments_of(world)) == 1
    # A new form (another problem reported from the same browser) is a new request.
    second = await send(client, link["token"], await open_form(client, link["token"]))
    assert second.status_code == 200 and "We already have" not in second.text
    assert tracking_link(second.text) != tracking_link(first.text)
    assert await issue_count(world.project.id) == 2


async def test_a_form_sent_twice_at_once_makes_one_request(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    both = await asyncio.gather(*(send(client, link["token"], form) for _ in range(2)))
    # The second finds the first's request, or (when both passed that check) meets the
    # tracking token's unique constraint and is refused as a page.
    assert sorted(page.status_code for page in both) in ([200, 200], [200, 409])
    for page in both:
        assert page.headers["content-type"].startswith("text/html")
        assert page.status_code == 200 or "This form was already sent" in page.text
    assert await issue_count(world.project.id) == 1 and await requests_of(world) == 1


async def test_fields_that_cannot_be_used_come_back_tied_to_the_field(
    client: httpx.AsyncClient,
) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    cases = [
        ({"email": "not-an-address"}, "email", "Enter an e-mail address"),
        ({"title": "  "}, "title", "Please fill this in"),
        ({"title": "x" * 501}, "title", "under 500 characters"),
        ({"description": ""}, "description", "Please fill this in"),
        ({"name": ""}, "name", "Please fill this in"),
        ({"location": "z" * 501}, "location", "under 500 characters"),
    ]
    for change, field, message in cases:
        page = await send(client, link["token"], form, **change)
        assert page.status_code == 400, (change, page.text)
        error = re.search(
            rf'<span class="error-text" id="f-{field}-error">([^<]*)</span>', page.text
        )
        assert error and message in error.group(1), (change, page.text)
        control = re.search(rf'<(?:input|textarea) id="f-{field}"[^>]*>', page.text)
        assert control and f"{field}-error" in control.group(0), control
        assert 'aria-invalid="true"' in control.group(0)
        assert f'<a href="#f-{field}">' in page.text  # the summary links to the field
        assert hidden(page.text, "key") == form["key"]  # the same form, still unsent
    assert await issue_count(world.project.id) == 0 and await requests_of(world) == 0


async def test_photos_that_cannot_be_used_bring_the_form_back_and_nothing_is_written(
    client: httpx.AsyncClient,
) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    too_big = PNG + b"\x00" * (PHOTOS.max_bytes + 1 - len(PNG))
    cases = [
        ([("notes.png", b"<html>hello</html>", "image/png")], "notes.png is not a photo"),
        ([("page.html", SCRIPT.encode(), "text/html")], "page.html is not a photo"),
        ([("scan.gif", b"GIF89a" + b"\x00" * 20, "image/gif")], "scan.gif is not a photo"),
        ([("huge.png", too_big, "image/png")], "huge.png is larger than 15 MB"),
        ([("empty.jpg", b"", "image/jpeg")], "empty.jpg is empty"),
        ([(f"p{n}.png", PNG, "image/png") for n in range(13)], "at most 12 photos"),
        ([("ok.png", PNG, "image/png"), ("bad.png", b"nope", "image/png")], "bad.png"),
    ]
    for photos, message in cases:
        page = await send(client, link["token"], form, photos, title=f"Kept {SCRIPT}")
        assert page.status_code == 400, (message, page.text[:500])
        error = re.search(r'<span class="error-text" id="f-photos-error">([^<]*)</span>', page.text)
        assert error and message in error.group(1), (message, error)
        assert 'value="Kept &lt;script&gt;alert(1)&lt;/script&gt;"' in page.text
        assert SCRIPT not in page.text
    assert await issue_count(world.project.id) == 0 and await requests_of(world) == 0
    assert await attachments_of(world) == []


async def test_script_in_any_field_is_shown_as_text(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    sent = await send(client, link["token"], form, title=f"Broken {SCRIPT}", name=SCRIPT)
    assert sent.status_code == 200
    assert SCRIPT not in sent.text and "Broken &lt;script&gt;" in sent.text
    tracked = await client.get(tracking_link(sent.text))
    assert SCRIPT not in tracked.text and "Broken &lt;script&gt;alert(1)&lt;/script&gt;" in (
        tracked.text
    )


async def test_a_form_without_its_csrf_token_or_key_is_refused(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    forged = await send(client, link["token"], form | {"csrf": "another-sites-guess"})
    assert forged.status_code == 403 and "<h1" in forged.text
    assert "sent from another site" in forged.text
    missing = await send(client, link["token"], {"key": form["key"]})
    assert missing.status_code == 403
    stale = await send(client, link["token"], form | {"key": "short"})
    assert stale.status_code == 400 and "Reload the page" in stale.text
    as_json = await client.post(page_url(link["token"]), json=fields("a@example.com") | form)
    assert as_json.status_code == 400 and as_json.headers["content-type"].startswith("text/html")
    assert await issue_count(world.project.id) == 0


async def test_a_valid_token_from_another_site_is_refused(client: httpx.AsyncClient) -> None:
    """One Origin rule for every form (issue 40 item 5): the portal's forms refused a valid CSRF
    token sent from another site only when the account's forms did."""
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    email = f"riley-{new_id()}@example.com"
    for origin in ("https://evil.example", "http://127.0.0.1:8000.evil.example"):
        forged = await client.post(
            page_url(link["token"]), data=form | fields(email), headers={"Origin": origin}
        )
        assert forged.status_code == 403 and "sent from another site" in forged.text, origin
    # A page whose URL is a credential sends no referrer: its own form comes with Origin null.
    ours = await client.post(
        page_url(link["token"]), data=form | fields(email), headers={"Origin": "null"}
    )
    assert ours.status_code == 200, ours.text
    assert await requests_of(world) == 1


async def test_wrong_expired_and_withdrawn_links_are_pages(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    clock.set_now(NOW)
    short = await make_link(client, world, expiresAt=(NOW + timedelta(hours=1)).isoformat())
    withdrawn = await make_link(client, world)
    gone = await client.delete(
        f"{links_url(world)}/{withdrawn['id']}", headers=world.manager.headers
    )
    assert gone.status_code == 200
    form = await open_form(client, short["token"])
    clock.set_now(NOW + timedelta(hours=2))
    cases = [
        (await client.get(page_url("not-a-real-token")), 404, "does not exist or was withdrawn"),
        (await client.get(page_url(withdrawn["token"])), 404, "does not exist or was withdrawn"),
        (await client.get(page_url(short["token"])), 410, "This reporting link has expired"),
        (await send(client, short["token"], form), 410, "This reporting link has expired"),
        (await client.get("/portal/requests/not-a-tracking-token"), 404, "No request follows"),
    ]
    for page, status, message in cases:
        assert page.status_code == status, page.text
        assert page.headers["content-type"].startswith("text/html")
        assert message in page.text and '"code"' not in page.text
    assert await issue_count(world.project.id) == 0
    # A project that turned its portal off: the link answers as a withdrawn one.
    live = await make_link(client, world)
    await set_project(world.project.id, operations_mode=True, modules={"occupantPortal": False})
    assert (await client.get(page_url(live["token"]))).status_code == 404


async def test_the_json_routes_rate_limit_is_a_429_page(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    clock.set_now(NOW)
    link = await make_link(client, world)
    for n in range(12):
        form = await open_form(client, link["token"])
        assert (await send(client, link["token"], form)).status_code == 200, n
    form = await open_form(client, link["token"])
    refused = await send(client, link["token"], form)
    assert refused.status_code == 429 and "Too many attempts" in refused.text
    assert int(refused.headers["Retry-After"]) >= 1
    assert await issue_count(world.project.id) == 12
    # The JSON route counts the same submissions.
    api = await client.post(
        f"/api/v1/occupant/{link['token']}/submit",
        json={"title": "t", "description": "d", "reporterName": "n", "reporterEmail": "a@b.co"},
    )
    assert api.status_code == 429


async def test_a_photo_refused_after_the_request_was_written_takes_it_all_back(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "billing", "local")
    world = await ops_world()
    link = await make_link(client, world)
    form = await open_form(client, link["token"])
    # Room for one photo: the first is stored and counted, the second is over the quota.
    room = STORAGE_QUOTA[world.workspace.plan] - len(PNG) - 5
    async with database.sessionmaker() as db:
        change = update(Workspace).where(Workspace.id == world.workspace.id)
        await db.execute(change.values(storage_used_bytes=room))
        await db.commit()
    photos = [("one.png", PNG, "image/png"), ("two.png", PNG, "image/png")]
    page = await send(client, link["token"], form, photos)
    assert page.status_code == 402, page.text
    assert "storage" in page.text and 'id="f-photos-error"' in page.text
    assert await issue_count(world.project.id) == 0 and await requests_of(world) == 0
    assert await attachments_of(world) == []
    stored = settings.storage_dir / "ws" / world.workspace.id
    assert [p for p in stored.rglob("*") if p.is_file()] == []
    async with database.sessionmaker() as db:
        used = select(Workspace.storage_used_bytes).where(Workspace.id == world.workspace.id)
        assert (await db.execute(used)).scalar_one() == room


async def test_the_language_cookie_chooses_the_pages_language(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    asked = await client.get(page_url(link["token"]), headers={"Accept-Language": "es"})
    assert '<html lang="es">' in asked.text  # the browser's language, without a choice
    client.cookies.set("plumbline_lang", "es")
    try:
        chosen = await client.get(page_url(link["token"]), headers={"Accept-Language": "en"})
    finally:
        client.cookies.delete("plumbline_lang")
    assert chosen.status_code == 200 and '<html lang="es">' in chosen.text
    assert '<html lang="en">' in (await client.get(page_url(link["token"]))).text
