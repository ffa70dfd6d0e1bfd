"""Link invites: management routes (the token routes are in tests/portal)."""

from datetime import datetime, timedelta

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import crypto
from plumbline.models import Invite
from tests.factories import QueryCounter, create_user
from tests.member.helpers import audit_actions, ws_url


def invites_url(world, invite_id: str = "") -> str:  # type: ignore[no-untyped-def]
    return ws_url(world.workspace.id, f"/invites/{invite_id}" if invite_id else "/invites")


async def test_create_shows_the_link_once_and_stores_only_a_hash(client, world):
    response = await client.post(
        invites_url(world),
        json={"role": "MANAGER", "expiresInDays": 3},
        headers=world.admin.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["role"] == "MANAGER"
    assert body["url"].startswith("http://127.0.0.1:8000/account/invite/")
    token = body["url"].rsplit("/", 1)[1]
    assert len(token) >= 43
    created = datetime.fromisoformat(body["createdAt"])
    assert datetime.fromisoformat(body["expiresAt"]) - created == timedelta(days=3)
    async with database.sessionmaker() as db:
        row = await db.get(Invite, body["id"])
        assert row.token_hash == crypto.sha256_hex(token) and token not in row.token_hash
    listed = await client.get(invites_url(world), headers=world.owner.headers)
    assert listed.status_code == 200
    assert listed.json() == [{**body, "url": None}]
    assert token not in listed.text
    default = await client.post(
        invites_url(world), json={"role": "MEMBER"}, headers=world.admin.headers
    )
    d = default.json()
    assert datetime.fromisoformat(d["expiresAt"]) - datetime.fromisoformat(
        d["createdAt"]
    ) == timedelta(days=14)
    assert [a.action for a in await audit_actions(world.workspace.id)] == ["invite.created"] * 2


async def test_create_refusals(client, world):
    url = invites_url(world)
    for body in (
        {},
        {"role": "OWNER"},
        {"role": "MEMBER", "expiresInDays": 0},
        {"role": "MEMBER", "expiresInDays": 91},
    ):
        assert (
            await client.post(url, json=body, headers=world.admin.headers)
        ).status_code == 400, body
    for actor in (world.manager, world.member):
        assert (
            await client.post(url, json={"role": "MEMBER"}, headers=actor.headers)
        ).status_code == 403
        assert (await client.get(url, headers=actor.headers)).status_code == 403
    stranger = await create_user()
    assert (
        await client.post(url, json={"role": "MEMBER"}, headers=stranger.headers)
    ).status_code == 404
    assert (await client.get(url, headers=stranger.headers)).status_code == 404
    assert (await client.post(url, json={"role": "MEMBER"})).status_code == 401
    assert (await client.get(url)).status_code == 401
    assert (
        await client.post(url, json={"role": "SUPER_ADMIN"}, headers=world.admin.headers)
    ).status_code == 403
    assert (
        await client.post(url, json={"role": "SUPER_ADMIN"}, headers=world.owner.headers)
    ).status_code == 200
    async with database.sessionmaker() as db:
        rows = (
            await db.execute(select(Invite).where(Invite.workspace_id == world.workspace.id))
        ).all()
    assert len(rows) == 1


async def test_revoke(client, world):
    created = (
        await client.post(invites_url(world), json={"role": "MEMBER"}, headers=world.admin.headers)
    ).json()
    url = invites_url(world, created["id"])
    assert (await client.delete(url, headers=world.manager.headers)).status_code == 403
    assert (await client.delete(url)).status_code == 401
    response = await client.delete(url, headers=world.admin.headers)
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert (await client.get(invites_url(world), headers=world.admin.headers)).json() == []
    assert (await client.delete(url, headers=world.admin.headers)).status_code == 404
    assert (
        await client.delete(invites_url(world, "nope"), headers=world.admin.headers)
    ).status_code == 404
    assert [a.action for a in await audit_actions(world.workspace.id)][-1] == "invite.revoked"
    # an ADMIN cannot revoke a SUPER_ADMIN link
    top = (
        await client.post(
            invites_url(world), json={"role": "SUPER_ADMIN"}, headers=world.owner.headers
        )
    ).json()
    assert (
        await client.delete(invites_url(world, top["id"]), headers=world.admin.headers)
    ).status_code == 403


async def test_another_workspace_cannot_touch_the_invite(client, world):
    from tests.factories import make_world

    other = await make_world()
    created = (
        await client.post(invites_url(world), json={"role": "MEMBER"}, headers=world.admin.headers)
    ).json()
    foreign = ws_url(other.workspace.id, f"/invites/{created['id']}")
    assert (await client.delete(foreign, headers=other.owner.headers)).status_code == 404
    assert (await client.get(invites_url(other), headers=other.owner.headers)).json() == []


async def test_list_runs_a_fixed_number_of_queries(client, world):
    await client.post(invites_url(world), json={"role": "MEMBER"}, headers=world.admin.headers)
    with QueryCounter() as one:
        assert len((await client.get(invites_url(world), headers=world.admin.headers)).json()) == 1
    for _ in range(12):
        await client.post(invites_url(world), json={"role": "MEMBER"}, headers=world.admin.headers)
    with QueryCounter() as many:
        assert len((await client.get(invites_url(world), headers=world.admin.headers)).json()) == 13
    assert one.count == many.count
    page = await client.get(invites_url(world), params={"limit": 5}, headers=world.admin.headers)
    assert len(page.json()) == 5 and 'rel="next"' in page.headers["link"]
