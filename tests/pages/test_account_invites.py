"""``/account/invite/{token}`` over plain HTTP: link and e-mail invites, the address rule, and
unknown, revoked, expired and accepted invites as pages; membership checked through the API."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx

from plumbline.kit import clock
from tests.factories import World, create_user, link_in, read_mails
from tests.identity.helpers import COOKIE
from tests.member.helpers import ws_url


def page(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("text/html")
    return response.text


def csrf_in(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


async def link_invite(client: httpx.AsyncClient, world: World, role: str = "MANAGER") -> str:
    made = await client.post(
        ws_url(world.workspace.id, "/invites"), json={"role": role}, headers=world.admin.headers
    )
    assert made.status_code == 200, made.text
    url = made.json()["url"]
    assert url.startswith("http://127.0.0.1:8000/account/invite/")
    return str(url).removeprefix("http://127.0.0.1:8000")


async def email_invite(client, world, outbox, email: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    made = await client.post(
        ws_url(world.workspace.id, "/email-invites"),
        json={"email": email, "kind": "CLIENT", "projectIds": [world.project.id]},
        headers=world.admin.headers,
    )
    assert made.status_code == 200, made.text
    link = link_in(read_mails(outbox, to=email)[-1])
    assert link.startswith("http://127.0.0.1:8000/account/invite/")
    return made.json()["id"], link.removeprefix("http://127.0.0.1:8000")


async def roles_of(client: httpx.AsyncClient, cookie: str) -> dict[str, str]:
    me = await client.get("/api/v1/me", headers={"Cookie": f"{COOKIE}={cookie}"})
    return {w["id"]: w["role"] for w in me.json()["workspaces"]}


async def test_a_link_invite_is_shown_then_accepted_once_signed_in(client, world):
    path = await link_invite(client, world)
    shown = page(await client.get(path), 200)
    assert f"Join {world.workspace.name} on Plumbline" in shown and "Manager" in shown
    assert f'href="/account/sign-up?next=%2Faccount%2Finvite%2F{path.rsplit("/", 1)[1]}"' in shown
    anonymous = await client.post(path, data={"csrf": client.cookies["plumbline_csrf"]})
    assert anonymous.status_code == 303
    assert anonymous.headers["location"].startswith("/account/sign-in?next=%2Faccount%2Finvite%2F")

    joiner = await create_user(name="Jo Joiner")
    client.cookies.set(COOKIE, joiner.cookie)
    signed = page(await client.get(path), 200)
    assert "Accept and join" in signed and "Jo Joiner" in signed
    for _ in range(2):  # a second tab's submit joins nobody twice; both go into the workspace
        joined = await client.post(path, data={"csrf": csrf_in(signed)})
        assert joined.status_code == 303
        assert joined.headers["location"] == f"/app/workspaces/{world.workspace.id}"
    home = page(await client.get(joined.headers["location"]), 200)
    assert f"You have joined {world.workspace.name}. Your role: Manager." in home
    assert (await roles_of(client, joiner.cookie))[world.workspace.id] == "MANAGER"
    members = await client.get(ws_url(world.workspace.id, "/members"), headers=world.admin.headers)
    assert [m["role"] for m in members.json() if m["userId"] == joiner.id] == ["MANAGER"]


async def test_an_email_invite_for_another_address_says_so_and_accepts_nobody(
    client, world, outbox
):
    invite_id, path = await email_invite(
        client, world, outbox, f"client-{world.workspace.id}@example.com"
    )
    other = await create_user(name="Someone Else")
    client.cookies.set(COOKIE, other.cookie)
    shown = page(await client.get(path), 200)
    assert "This invitation is for another address" in shown
    assert f"client-{world.workspace.id}@example.com" in shown and "Accept and join" not in shown
    refused = await client.post(path, data={"csrf": csrf_in(shown)})
    assert "sent to another e-mail address" in page(refused, 403)
    assert world.workspace.id not in await roles_of(client, other.cookie)
    invites = await client.get(
        ws_url(world.workspace.id, "/email-invites"), headers=world.admin.headers
    )
    assert [i["acceptedAt"] for i in invites.json() if i["id"] == invite_id] == [None]


async def test_an_email_invite_accepted_by_its_address_verifies_it(client, world, outbox):
    address = f"invited-{world.workspace.id}@example.com"
    _, path = await email_invite(client, world, outbox, address)
    invited = await create_user(name="In Vited", email_address=address, verified=False)
    client.cookies.set(COOKIE, invited.cookie)
    shown = page(await client.get(path), 200)
    assert "Client: the projects shared with you" in shown
    joined = await client.post(path, data={"csrf": csrf_in(shown)})
    assert joined.headers["location"] == f"/app/workspaces/{world.workspace.id}"
    assert "You have joined" in page(await client.get(joined.headers["location"]), 200)
    assert (await roles_of(client, invited.cookie))[world.workspace.id] == "MEMBER"
    session = await client.get("/api/auth/get-session")
    assert session.json()["user"]["emailVerified"] is True
    # Used now: the page says so to anyone who opens it again.
    client.cookies.clear()
    assert "already been accepted" in page(await client.get(path), 409)


async def test_unknown_revoked_and_expired_invites_are_pages(client, world, outbox):
    assert "does not exist" in page(await client.get("/account/invite/not-a-token"), 404)
    script = await client.get("/account/invite/<script>alert(1)</script>")
    assert script.status_code == 404 and "<script>alert" not in script.text
    path = await link_invite(client, world)
    listed = await client.get(ws_url(world.workspace.id, "/invites"), headers=world.admin.headers)
    revoked = await client.delete(
        ws_url(world.workspace.id, f"/invites/{listed.json()[0]['id']}"),
        headers=world.admin.headers,
    )
    assert revoked.status_code in (200, 204)
    assert "does not exist or was revoked" in page(await client.get(path), 404)
    _, pending = await email_invite(client, world, outbox, f"late-{world.workspace.id}@example.com")
    clock.set_now(clock.now() + timedelta(days=15))
    assert "This invite has expired" in page(await client.get(pending), 410)
