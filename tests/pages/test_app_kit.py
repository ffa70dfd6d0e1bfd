"""The web application's kit through HTTP: the door, the layout, fragments for htmx, refusals
as pages, sign-in and back, forms (errors kept, one record per submission, CSRF and Origin),
saved views, languages, static files and the vendored libraries' manifest."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import httpx
from sqlalchemy import func, select

from plumbline.db import database
from plumbline.models import Project, SavedView
from tests.factories import PAGE_CSRF, World, create_user, make_world

VENDOR = Path(__file__).resolve().parents[2] / "src/plumbline/pages/static/vendor"


def form(**fields: str) -> dict[str, str]:
    return {"csrf": PAGE_CSRF, **fields}


async def test_the_door_opens_the_last_workspace_or_the_first(
    client: httpx.AsyncClient, world: World
) -> None:
    door = await client.get("/app/", headers=world.member.headers)
    assert door.status_code == 303
    assert door.headers["location"] == f"/app/workspaces/{world.workspace.id}"
    second = await make_world()
    cookie = world.owner.headers["Cookie"]
    # The owner of one workspace, made a member of another: the last one opened wins.
    from tests.factories import add_member

    await add_member(second.workspace, world.owner, "MEMBER")
    home = await client.get(f"/app/workspaces/{second.workspace.id}", headers=world.owner.headers)
    remembered = home.cookies.get("plumbline_workspace")
    assert remembered == second.workspace.id
    again = await client.get(
        "/app/", headers={"Cookie": f"{cookie}; plumbline_workspace={remembered}"}
    )
    assert again.headers["location"] == f"/app/workspaces/{second.workspace.id}"


async def test_a_new_user_without_a_workspace_is_asked_to_create_one(
    client: httpx.AsyncClient,
) -> None:
    person = await create_user(name="New Person")
    door = await client.get("/app/", headers=person.headers)
    assert door.headers["location"] == "/app/workspaces/new"
    page = await client.get("/app/workspaces/new", headers=person.page_headers)
    assert page.status_code == 200 and 'name="name"' in page.text


async def test_an_anonymous_visitor_signs_in_and_comes_back(
    client: httpx.AsyncClient, world: World
) -> None:
    path = f"/app/projects/{world.project.id}/issues?status=OPEN"
    answer = await client.get(path)
    assert answer.status_code == 303
    assert answer.headers["location"] == (
        "/account/sign-in?next=%2Fapp%2Fprojects%2F"
        + world.project.id
        + "%2Fissues%3Fstatus%3DOPEN"
    )
    # To htmx: a redirect it follows as a whole page.
    fragment = await client.get(
        path, headers={"HX-Request": "true", "HX-Current-URL": f"http://x{path}"}
    )
    assert fragment.headers["hx-redirect"].startswith("/account/sign-in?next=")
    # A form sent once the session had ended: sign in, then back to the page it was on.
    posted = await client.post(
        f"/app/workspaces/{world.workspace.id}/projects/new",
        data=form(name="X"),
        headers={
            "Referer": f"http://127.0.0.1:8000/app/workspaces/{world.workspace.id}/projects/new"
        },
    )
    assert posted.status_code == 303
    assert "next=%2Fapp%2Fworkspaces%2F" in posted.headers["location"]


async def test_the_layout_the_fragment_and_the_headers(
    client: httpx.AsyncClient, world: World
) -> None:
    path = f"/app/projects/{world.project.id}/issues"
    page = await client.get(path, headers=world.member.headers)
    assert page.status_code == 200
    html = page.text
    assert "<html" in html and 'id="results"' in html and world.project.name in html
    assert f'href="/app/projects/{world.project.id}/issues" aria-current="page"' in html
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["referrer-policy"] == "same-origin"
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe" not in policy
    fragment = await client.get(
        path + "?status=OPEN",
        headers={**world.member.headers, "HX-Request": "true", "HX-Target": "results"},
    )
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<div id="results"')
    assert "<html" not in fragment.text
    # A boosted navigation (the whole body) gets the whole page.
    boosted = await client.get(
        path,
        headers={
            **world.member.headers,
            "HX-Request": "true",
            "HX-Boosted": "true",
            "HX-Target": "results",
        },
    )
    assert "<html" in boosted.text


async def test_the_brand_style_is_allowed_by_its_hash_on_every_page(
    client: httpx.AsyncClient, world: World
) -> None:
    """The one inline <style> (the brand's colours) is allowed by its sha256, the same on every
    page of the workspace: a page htmx swaps in keeps matching the first page's policy (a nonce
    changed on every answer, and each boosted navigation logged a CSP violation)."""
    policies = []
    for path in (f"/app/workspaces/{world.workspace.id}", f"/app/projects/{world.project.id}"):
        page = await client.get(path, headers=world.member.headers)
        css = re.search(r"<style>(.*?)</style>", page.text, re.S)
        assert css is not None and "nonce" not in page.text
        digest = base64.b64encode(hashlib.sha256(css.group(1).encode()).digest()).decode()
        policy = page.headers["content-security-policy"]
        assert f"style-src 'self' 'sha256-{digest}'" in policy
        policies.append(policy)
    assert policies[0] == policies[1]


async def test_another_workspace_and_a_missing_page_are_the_404_page(
    client: httpx.AsyncClient, world: World
) -> None:
    stranger = await make_world()
    for path in (
        f"/app/projects/{world.project.id}",
        f"/app/projects/{world.project.id}/issues",
        f"/app/workspaces/{world.workspace.id}",
        "/app/projects/no-such-project/issues",
    ):
        answer = await client.get(path, headers=stranger.owner.headers)
        assert answer.status_code == 404, path
        assert answer.headers["content-type"].startswith("text/html")
        assert "This link doesn&#39;t lead anywhere" in answer.text or "doesn't lead" in answer.text
        assert world.project.name not in answer.text
    unknown = await client.get("/app/nowhere", headers=world.member.headers)
    assert unknown.status_code == 404 and "<h1" in unknown.text


async def test_a_refused_form_keeps_what_was_typed_and_says_why(
    client: httpx.AsyncClient, world: World
) -> None:
    url = f"/app/workspaces/{world.workspace.id}/projects/new"
    bad = await client.post(
        url,
        data=form(name="", location="<b>Pier 4</b>", currency="dollars", submission="s-1"),
        headers=world.manager.page_headers,
    )
    assert bad.status_code == 400
    assert 'id="f-name-error"' in bad.text and "Enter the project" in bad.text
    assert "&lt;b&gt;Pier 4&lt;/b&gt;" in bad.text and "<b>Pier 4</b>" not in bad.text
    wrong = await client.post(
        url, data=form(name="Pier 4", currency="dollars"), headers=world.manager.page_headers
    )
    assert wrong.status_code == 400 and 'id="f-currency-error"' in wrong.text
    assert 'value="Pier 4"' in wrong.text


async def test_a_double_submit_creates_one_record(client: httpx.AsyncClient, world: World) -> None:
    url = f"/app/workspaces/{world.workspace.id}/projects/new"
    name = f"Pier {world.project.id[-6:]}"
    fields = form(name=name, stage="Planning", currency="USD", timezone="UTC", submission="k-9")
    first = await client.post(url, data=fields, headers=world.manager.page_headers)
    second = await client.post(url, data=fields, headers=world.manager.page_headers)
    assert first.status_code == second.status_code == 303
    assert first.headers["location"] == second.headers["location"]
    async with database.sessionmaker() as db:
        made = await db.scalar(
            select(func.count()).where(
                Project.workspace_id == world.workspace.id, Project.name == name
            )
        )
    assert made == 1
    # A new form (a new key) is a new record.
    fields["submission"] = "k-10"
    third = await client.post(url, data=fields, headers=world.manager.page_headers)
    assert third.headers["location"] != first.headers["location"]


async def test_csrf_and_origin_guard_every_form(client: httpx.AsyncClient, world: World) -> None:
    url = f"/app/workspaces/{world.workspace.id}/projects/new"
    fields = form(name="Forged", stage="Planning")
    no_token = await client.post(url, data={"name": "Forged"}, headers=world.manager.page_headers)
    assert no_token.status_code == 403 and "expired" in no_token.text
    evil = await client.post(
        url, data=fields, headers={**world.manager.page_headers, "Origin": "https://evil.example"}
    )
    assert evil.status_code == 403
    async with database.sessionmaker() as db:
        forged = await db.scalar(
            select(func.count()).where(
                Project.workspace_id == world.workspace.id, Project.name == "Forged"
            )
        )
    assert forged == 0


async def test_a_role_that_may_not_act_is_not_offered_and_is_refused(
    client: httpx.AsyncClient, world: World
) -> None:
    home = await client.get(f"/app/workspaces/{world.workspace.id}", headers=world.member.headers)
    assert "/projects/new" not in home.text
    refused = await client.post(
        f"/app/workspaces/{world.workspace.id}/projects/new",
        data=form(name="Not mine"),
        headers=world.member.page_headers,
    )
    assert refused.status_code == 403 and "<h1" in refused.text


async def test_saved_views_are_the_persons_own_or_shared(
    client: httpx.AsyncClient, world: World
) -> None:
    url = f"/app/projects/{world.project.id}/views?page=issues"
    saved = await client.post(
        url,
        data=form(name="  Urgent  open ", query="status=OPEN&priority=URGENT&cursor=abc"),
        headers=world.member.page_headers,
    )
    assert saved.status_code == 303
    assert saved.headers["location"].endswith("/issues?status=OPEN&priority=URGENT")
    shared = await client.post(
        url,
        data=form(name="Team", query="status=CLOSED", shared="1"),
        headers=world.manager.page_headers,
    )
    assert shared.status_code == 303
    mine = (
        await client.get(f"/app/projects/{world.project.id}/issues", headers=world.member.headers)
    ).text
    assert "Urgent open" in mine and "Team" in mine
    theirs = (
        await client.get(f"/app/projects/{world.project.id}/issues", headers=world.admin.headers)
    ).text
    assert "Urgent open" not in theirs and "Team" in theirs
    empty = await client.post(url, data=form(name=" ", query=""), headers=world.member.page_headers)
    assert empty.status_code == 303 and "plumbline_flash" in empty.headers.get("set-cookie", "")
    nowhere = await client.post(
        f"/app/projects/{world.project.id}/views?page=nothing",
        data=form(name="x", query=""),
        headers=world.member.page_headers,
    )
    assert nowhere.status_code == 404
    async with database.sessionmaker() as db:
        count = await db.scalar(
            select(func.count()).where(SavedView.project_id == world.project.id)
        )
    assert count == 2


async def test_the_page_speaks_the_persons_language(
    client: httpx.AsyncClient, world: World
) -> None:
    path = f"/app/projects/{world.project.id}/issues"
    spanish = await client.get(
        path, headers={**world.member.headers, "Accept-Language": "es-MX,en;q=0.5"}
    )
    assert '<html lang="es">' in spanish.text and "Incidencias" in spanish.text
    chosen = await client.post(
        "/app/language", data=form(language="en", next=path), headers=world.member.page_headers
    )
    assert chosen.status_code == 303 and chosen.headers["location"] == path
    assert chosen.cookies.get("plumbline_lang") == "en"
    english = await client.get(
        path,
        headers={
            "Cookie": world.member.headers["Cookie"] + "; plumbline_lang=en",
            "Accept-Language": "es",
        },
    )
    assert '<html lang="en">' in english.text


async def test_static_files_are_hashed_compressed_and_kept_a_year(
    client: httpx.AsyncClient, world: World
) -> None:
    page = (
        await client.get(f"/app/workspaces/{world.workspace.id}", headers=world.member.headers)
    ).text
    scripts = [
        part.split('"', 1)[0] for part in page.split('src="')[1:] if part.startswith("/static/")
    ]
    assert any("/vendor/htmx/htmx.min." in s for s in scripts)
    for url in scripts:
        answer = await client.get(url, headers={"Accept-Encoding": "gzip"})
        assert answer.status_code == 200, url
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert answer.headers["content-encoding"] == "gzip"
        assert answer.headers["content-type"].startswith("text/javascript")


def test_the_vendored_libraries_match_their_manifest() -> None:
    manifest = json.loads((VENDOR / "manifest.json").read_text())
    assert manifest, "no vendored library"
    for lib, entry in manifest.items():
        assert entry["version"] and entry["package"] and entry["license"], lib
        assert "LICENSE" in entry["files"], f"{lib}: no LICENSE"
        assert set(entry["sha256"]) == set(entry["files"]), lib
        for name, digest in entry["sha256"].items():
            data = (VENDOR / lib / name).read_bytes()
            assert hashlib.sha256(data).hexdigest() == digest, f"{lib}/{name} changed"
    listed = {f"{lib}/{name}" for lib, e in manifest.items() for name in e["files"]}
    present = {
        str(p.relative_to(VENDOR))
        for p in VENDOR.rglob("*")
        if p.is_file() and p.name != "manifest.json"
    }
    assert present == listed, "a vendored file outside the manifest"
