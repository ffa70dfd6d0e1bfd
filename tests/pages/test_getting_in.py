"""Getting in, over HTTP (issue 41 item 2): ``/``, sign up, "check your inbox", the e-mail's
link into the app, a first workspace, invites both ways, sign out, the workspace switcher, a
session that ends mid-form, and the forms' refusals. Outcomes checked through the JSON API."""

from __future__ import annotations

import re

import httpx

from plumbline.kit.ids import new_id
from tests.factories import (
    PAGE_CSRF,
    World,
    add_member,
    create_user,
    link_in,
    make_world,
    read_mails,
)
from tests.identity.helpers import COOKIE, STRONG, unique_email
from tests.member.helpers import ws_url

ORIGIN = "http://127.0.0.1:8000"


def html(response: httpx.Response, status: int = 200) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("text/html")
    return response.text


def csrf_in(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def to(response: httpx.Response) -> str:
    assert response.status_code == 303, response.text
    return response.headers["location"]


async def workspaces_of(client: httpx.AsyncClient) -> list[tuple[str, str]]:
    me = await client.get("/api/v1/me")
    assert me.status_code == 200, me.text
    return [(w["name"], w["role"]) for w in me.json()["workspaces"]]


async def sign_up_in_pages(client: httpx.AsyncClient, name: str = "Nova Builder") -> str:
    email = unique_email("Door").lower()
    form = html(await client.get("/account/sign-up"))
    made = await client.post(
        "/account/sign-up",
        data={"csrf": csrf_in(form), "name": name, "email": email, "password": STRONG},
    )
    assert to(made) == "/account/check-inbox"
    return email


async def test_the_root_opens_the_app_or_sign_in(client: httpx.AsyncClient, world: World):
    assert to(await client.get("/")) == "/app/"
    assert to(await client.get("/app/")) == "/account/sign-in?next=%2Fapp%2F"
    assert to(await client.get("/", headers=world.member.headers)) == "/app/"
    door = await client.get("/app/", headers=world.member.headers)
    assert to(door) == f"/app/workspaces/{world.workspace.id}"


async def test_sign_up_verify_from_the_mail_then_a_first_workspace(
    client: httpx.AsyncClient, outbox
):
    email = await sign_up_in_pages(client)
    inbox = html(await client.get("/account/check-inbox"))
    assert "Check your inbox" in inbox and email in inbox
    # Before verifying, the app's door leads to the form, which says to verify (never a dead end).
    assert to(await client.get("/app/")) == "/app/workspaces/new"
    refused = await client.get("/app/workspaces/new")
    assert to(refused) == "/account/check-inbox?next=%2Fapp%2Fworkspaces%2Fnew"
    inbox = html(await client.get(to(refused)))
    assert 'action="/account/verify-email"' in inbox and "Send a new link" in inbox
    resent = await client.post(
        "/account/verify-email",
        data={"csrf": csrf_in(inbox), "email": email, "next": "/app/workspaces/new"},
    )
    assert "a new link is on its way" in html(resent)
    mails = read_mails(outbox, to=email)
    assert len(mails) == 2
    link = link_in(mails[-1])
    assert link.startswith(f"{ORIGIN}/account/verify-email?token=")

    verified = await client.get(link.removeprefix(ORIGIN))
    assert to(verified) == "/app/"
    assert to(await client.get("/app/")) == "/app/workspaces/new"
    form = html(await client.get("/app/workspaces/new"))
    assert "Your e-mail address is verified." in form  # the flash
    assert to(await client.get("/account/check-inbox")) == "/app/"  # nothing left to do

    name = f"Nova Co {new_id()}"
    made = await client.post(
        "/app/workspaces/new",
        data={"csrf": csrf_in(form), "name": name, "submission": new_id()},
    )
    home = to(made)
    assert home.startswith("/app/workspaces/")
    assert "Add your first project" in html(await client.get(home))
    assert await workspaces_of(client) == [(name, "SUPER_ADMIN")]
    assert to(await client.get("/app/")) == home
    account = html(await client.get("/account/"))
    assert f'href="{home}"' in account and "Create a workspace" in account
    assert "Super admin" in account


async def test_a_new_account_page_offers_to_create_a_workspace(client: httpx.AsyncClient):
    person = await create_user(name="Solo Person")
    page = html(await client.get("/account/", headers=person.headers))
    assert "You are not in a workspace yet" in page
    assert 'href="/app/workspaces/new"' in page and "Ask a teammate" not in page
    assert "not verified yet" not in page


async def test_signing_in_lands_in_the_app_or_on_next(client: httpx.AsyncClient, world: World):
    form = html(await client.get("/account/sign-in"))
    data = {"csrf": csrf_in(form), "email": world.member.user.email, "password": "Correct-Horse-9"}
    assert to(await client.post("/account/sign-in", data=data)) == "/app/"
    client.cookies.delete(COOKIE)
    issues = f"/app/projects/{world.project.id}/issues"
    signed = await client.post("/account/sign-in", data={**data, "next": issues})
    assert to(signed) == issues
    assert "<h1" in html(await client.get(issues))


async def test_sign_out_from_the_apps_account_menu(client: httpx.AsyncClient, world: World):
    actor = await create_user(name="Leaving Soon")
    await add_member(world.workspace, actor, "MEMBER")
    client.cookies.set(COOKIE, actor.cookie)
    page = html(await client.get(f"/app/workspaces/{world.workspace.id}"))
    menu = page[page.index('class="menu account"') :]
    assert 'action="/account/sign-out"' in menu
    out = await client.post("/account/sign-out", data={"csrf": csrf_in(menu)})
    assert to(out) == "/account/sign-in"
    assert "You are signed out." in html(await client.get("/account/sign-in"))
    assert (await client.get("/api/v1/me")).status_code == 401
    assert to(await client.get("/app/")) == "/account/sign-in?next=%2Fapp%2F"


async def test_the_switcher_lists_marks_and_remembers_workspaces(
    client: httpx.AsyncClient, world: World
):
    other = await make_world()
    await add_member(other.workspace, world.member, "MANAGER")
    page = html(
        await client.get(f"/app/workspaces/{world.workspace.id}", headers=world.member.headers)
    )
    switcher = page[page.index('class="menu switcher"') : page.index('class="search"')]
    assert f'href="/app/workspaces/{world.workspace.id}" aria-current="true"' in switcher
    assert f'href="/app/workspaces/{other.workspace.id}">' in switcher
    assert 'href="/app/workspaces/new"' in switcher and "New workspace" in switcher
    opened = await client.get(f"/app/workspaces/{other.workspace.id}", headers=world.member.headers)
    remembered = opened.cookies.get("plumbline_workspace")
    assert remembered == other.workspace.id
    cookie = f"{world.member.headers['Cookie']}; plumbline_workspace={remembered}"
    assert to(await client.get("/app/", headers={"Cookie": cookie})) == (
        f"/app/workspaces/{other.workspace.id}"
    )
    # A workspace the person has left is not reopened: the first of theirs is.
    gone = f"{world.member.headers['Cookie']}; plumbline_workspace={new_id()}"
    assert to(await client.get("/app/", headers={"Cookie": gone})).startswith("/app/workspaces/")


async def test_a_session_ending_mid_form_signs_in_and_returns_to_the_form(
    client: httpx.AsyncClient, world: World
):
    form_url = f"/app/workspaces/{world.workspace.id}/projects/new"
    sign_in = html(await client.get("/account/sign-in"))
    data = {"csrf": csrf_in(sign_in), "email": world.manager.user.email}
    assert to(await client.post("/account/sign-in", data={**data, "password": "Correct-Horse-9"}))
    form = html(await client.get(form_url))
    # Signed out in another tab: the form's POST answers the sign-in page with next.
    await client.post("/api/auth/sign-out")
    client.cookies.delete(COOKIE)
    name = f"Late Project {new_id()}"
    posted = await client.post(
        form_url,
        data={"csrf": csrf_in(form), "name": name, "submission": new_id()},
        headers={"Referer": ORIGIN + form_url},
    )
    back = to(posted)
    assert back == "/account/sign-in?next=" + form_url.replace("/", "%2F")
    htmx = await client.post(
        form_url,
        data={"csrf": csrf_in(form), "name": name},
        headers={"Referer": ORIGIN + form_url, "HX-Request": "true"},
    )
    assert htmx.headers["hx-redirect"] == back
    page = html(await client.get(back))
    assert f'name="next" value="{form_url}"' in page
    signed = await client.post(
        "/account/sign-in",
        data={**data, "csrf": csrf_in(page), "password": "Correct-Horse-9", "next": form_url},
    )
    assert to(signed) == form_url
    assert 'name="name"' in html(await client.get(form_url))
    projects = await client.get(
        ws_url(world.workspace.id, "/projects"), headers=world.admin.headers
    )
    assert name not in projects.text  # nothing was written by the refused POST


async def test_bad_fields_are_kept_with_their_errors(client: httpx.AsyncClient, outbox):
    form = html(await client.get("/account/sign-up"))
    typed = "Ann <i>Typed</i>"
    bad = await client.post(
        "/account/sign-up",
        data={"csrf": csrf_in(form), "name": typed, "email": "not-an-address", "password": ""},
    )
    page = html(bad, 400)
    assert 'value="Ann &lt;i&gt;Typed&lt;/i&gt;"' in page and 'value="not-an-address"' in page
    assert 'id="f-password-error"' in page and "Enter your password" in page
    assert 'aria-invalid="true"' in page and 'role="alert"' in page
    # An empty workspace name, for a verified person: kept out, said beside the field.
    person = await create_user(name="Form Filler")
    empty = await client.post(
        "/app/workspaces/new",
        data={"csrf": PAGE_CSRF, "name": "   ", "submission": new_id()},
        headers=person.page_headers,
    )
    assert 'id="f-name-error"' in html(empty, 400)
    me = await client.get("/api/v1/me", headers=person.headers)
    assert me.json()["workspaces"] == []


async def test_a_stale_form_is_refused_and_writes_nothing(client: httpx.AsyncClient):
    person = await create_user(name="Stale Tab")
    name = f"Stale Co {new_id()}"
    stale = await client.post(
        "/app/workspaces/new",
        data={"csrf": "an-old-token", "name": name, "submission": new_id()},
        headers=person.page_headers,
    )
    assert "Reload the page" in html(stale, 403)
    me = await client.get("/api/v1/me", headers=person.headers)
    assert me.json()["workspaces"] == []
    signed_up = await client.post(
        "/account/sign-up",
        data={"csrf": "nope", "name": "X", "email": unique_email(), "password": STRONG},
    )
    assert html(signed_up, 403) and COOKIE not in signed_up.headers.get("set-cookie", "")


async def test_a_double_submit_creates_one_workspace(client: httpx.AsyncClient):
    person = await create_user(name="Double Clicker")
    data = {"csrf": PAGE_CSRF, "name": f"Once Co {new_id()}", "submission": new_id()}
    first = await client.post("/app/workspaces/new", data=data, headers=person.page_headers)
    second = await client.post("/app/workspaces/new", data=data, headers=person.page_headers)
    assert to(first) == to(second)
    me = await client.get("/api/v1/me", headers=person.headers)
    assert [w["name"] for w in me.json()["workspaces"]] == [data["name"]]


async def test_an_email_invite_for_a_new_person_leads_into_the_workspace(
    client: httpx.AsyncClient, world: World, outbox
):
    email = f"new-{new_id()}@example.com"
    sent = await client.post(
        ws_url(world.workspace.id, "/email-invites"),
        json={"email": email, "role": "MEMBER"},
        headers=world.admin.headers,
    )
    assert sent.status_code == 200, sent.text
    path = link_in(read_mails(outbox, to=email)[-1]).removeprefix(ORIGIN)
    invite = html(await client.get(path))
    sign_up = re.search(r'href="(/account/sign-up\?[^"]+)"', invite).group(1)  # type: ignore[union-attr]
    form = html(await client.get(sign_up.replace("&amp;", "&")))
    assert f'value="{email}"' in form and f'name="next" value="{path}"' in form
    made = await client.post(
        "/account/sign-up",
        data={
            "csrf": csrf_in(form),
            "name": "Neve New",
            "email": email,
            "password": STRONG,
            "next": path,
        },
    )
    assert to(made) == path  # back to the invite, not "check your inbox"
    shown = html(await client.get(path))
    accepted = await client.post(path, data={"csrf": csrf_in(shown)})
    assert to(accepted) == f"/app/workspaces/{world.workspace.id}"
    home = html(await client.get(to(accepted)))  # the invite verified the address
    assert f"You have joined {world.workspace.name}. Your role: Member." in home
    assert await workspaces_of(client) == [(world.workspace.name, "MEMBER")]


async def test_a_link_invite_for_a_signed_in_person_leads_into_the_workspace(
    client: httpx.AsyncClient, world: World
):
    made = await client.post(
        ws_url(world.workspace.id, "/invites"),
        json={"role": "MANAGER"},
        headers=world.admin.headers,
    )
    path = str(made.json()["url"]).removeprefix(ORIGIN)
    joiner = await create_user(name="Jules Joiner")
    client.cookies.set(COOKIE, joiner.cookie)
    shown = html(await client.get(path))
    accepted = await client.post(path, data={"csrf": csrf_in(shown)})
    assert to(accepted) == f"/app/workspaces/{world.workspace.id}"
    assert "Your role: Manager." in html(await client.get(to(accepted)))
    assert await workspaces_of(client) == [(world.workspace.name, "MANAGER")]
