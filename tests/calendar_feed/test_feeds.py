"""Creating, listing and revoking calendar feeds: who may, what is shown, what 404s."""

from __future__ import annotations

import httpx
from sqlalchemy import func, select

from plumbline.db import database
from plumbline.kit import crypto
from plumbline.kit.ids import new_id
from plumbline.models import CalendarFeed
from tests.calendar_feed.helpers import ME, make_feed, path_of, project_feeds
from tests.factories import (
    World,
    audit_entries,
    create_api_key,
    create_user,
    external,
    key_headers,
    make_world,
)

FIELDS = {"id", "kind", "projectId", "name", "createdBy", "createdAt", "lastUsedAt"}


async def _stored(feed_id: str) -> CalendarFeed:
    async with database.sessionmaker() as db:
        query = select(CalendarFeed).where(CalendarFeed.id == feed_id)
        return (await db.execute(query)).scalar_one()


async def _count(project_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(CalendarFeed.project_id == project_id)
        return int((await db.execute(query)).scalar_one())


async def test_personal_feed_url_is_shown_once_and_stored_hashed(
    client: httpx.AsyncClient, world: World
) -> None:
    feed = await make_feed(client, world.member.headers)
    assert set(feed) == FIELDS | {"url"}
    assert feed["kind"] == "USER" and feed["projectId"] is None
    assert feed["name"] == "Mel Member: due dates"
    assert feed["createdBy"] == world.member.id and feed["lastUsedAt"] is None
    assert feed["url"].startswith("http://127.0.0.1:8000/api/v1/calendar/")
    assert feed["url"].endswith(".ics")
    token = path_of(feed).removeprefix("/api/v1/calendar/").removesuffix(".ics")
    assert len(token) >= 43
    stored = await _stored(feed["id"])
    assert stored.token_hash == crypto.sha256_hex(token)
    assert token not in str(vars(stored))

    listed = await client.get(ME, headers=world.member.headers)
    assert listed.status_code == 200
    assert [f["id"] for f in listed.json()] == [feed["id"]]
    assert set(listed.json()[0]) == FIELDS
    # Another user's list is their own.
    other = await client.get(ME, headers=world.manager.headers)
    assert feed["id"] not in [f["id"] for f in other.json()]
    entries = await audit_entries(feed["id"])
    assert [e.action for e in entries] == ["calendar_feed.created"]

    # A fetch stamps the last use (a read-only request's one write).
    assert (await client.get(path_of(feed))).status_code == 200
    [used] = (await client.get(ME, headers=world.member.headers)).json()
    assert used["lastUsedAt"] is not None


async def test_the_body_is_optional(client: httpx.AsyncClient, world: World) -> None:
    response = await client.post(project_feeds(world.project.id), headers=world.member.headers)
    assert response.status_code == 200, response.text
    assert response.json()["name"] == world.project.name
    # The default name of a user with the longest name still fits.
    long = await create_user(name="N" * 200)
    mine = await make_feed(client, long.headers)
    assert mine["name"] == "N" * 189 + ": due dates"


async def test_named_feed_and_bad_names(client: httpx.AsyncClient, world: World) -> None:
    feed = await make_feed(client, world.member.headers, name="  Site diary  ")
    assert feed["name"] == "Site diary"
    before = await _count(world.project.id)
    for body in ({"name": ""}, {"name": "   "}, {"name": "x" * 201}, {"name": 5}):
        response = await client.post(
            project_feeds(world.project.id), json=body, headers=world.member.headers
        )
        assert response.status_code == 400, body
        assert response.json()["code"] == "VALIDATION_FAILED"
    assert await _count(world.project.id) == before


async def test_revoked_feed_answers_404_and_leaves_the_list(
    client: httpx.AsyncClient, world: World
) -> None:
    feed = await make_feed(client, world.member.headers)
    assert (await client.get(path_of(feed))).status_code == 200
    revoked = await client.delete(f"{ME}/{feed['id']}", headers=world.member.headers)
    assert revoked.status_code == 200 and revoked.json() == {"ok": True}
    gone = await client.get(path_of(feed))
    assert gone.status_code == 404
    assert gone.json() == {
        "error": "This calendar feed does not exist or was revoked",
        "code": "NOT_FOUND",
    }
    assert (await client.head(path_of(feed))).status_code == 404
    listed = await client.get(ME, headers=world.member.headers)
    assert feed["id"] not in [f["id"] for f in listed.json()]
    # Idempotent: the first revocation stays.
    first = (await _stored(feed["id"])).revoked_at
    again = await client.delete(f"{ME}/{feed['id']}", headers=world.member.headers)
    assert again.status_code == 200
    assert (await _stored(feed["id"])).revoked_at == first
    actions = [e.action for e in await audit_entries(feed["id"])]
    assert actions == ["calendar_feed.created", "calendar_feed.revoked"]


async def test_unknown_tokens_are_404(client: httpx.AsyncClient) -> None:
    for token in (crypto.random_token(), "x", "a" * 300):
        response = await client.get(f"/api/v1/calendar/{token}.ics")
        assert response.status_code == 404
        assert response.json()["code"] == "NOT_FOUND"
    assert (await client.get("/api/v1/calendar/nothing")).status_code == 404


async def test_someone_elses_feed_cannot_be_revoked(
    client: httpx.AsyncClient, world: World
) -> None:
    mine = await make_feed(client, world.member.headers)
    refused = await client.delete(f"{ME}/{mine['id']}", headers=world.manager.headers)
    assert refused.status_code == 404
    project_feed = await make_feed(client, world.member.headers, world.project.id)
    # A project feed is not a personal feed, and the reverse.
    assert (
        await client.delete(f"{ME}/{project_feed['id']}", headers=world.member.headers)
    ).status_code == 404
    assert (
        await client.delete(
            f"{project_feeds(world.project.id)}/{mine['id']}", headers=world.member.headers
        )
    ).status_code == 404
    assert (await client.get(path_of(mine))).status_code == 200
    assert (await client.get(path_of(project_feed))).status_code == 200


async def test_project_feeds_own_or_all_for_admins(client: httpx.AsyncClient, world: World) -> None:
    members = await make_feed(client, world.member.headers, world.project.id)
    managers = await make_feed(client, world.manager.headers, world.project.id, name="Site")
    assert members["kind"] == "PROJECT" and members["projectId"] == world.project.id
    assert members["name"] == world.project.name
    url = project_feeds(world.project.id)
    own = await client.get(url, headers=world.member.headers)
    assert [f["id"] for f in own.json()] == [members["id"]]
    everyone = await client.get(url, headers=world.admin.headers)
    assert [f["id"] for f in everyone.json()] == [managers["id"], members["id"]]
    # A member cannot revoke the manager's feed; an admin can.
    refused = await client.delete(f"{url}/{managers['id']}", headers=world.member.headers)
    assert refused.status_code == 404
    assert (await client.get(path_of(managers))).status_code == 200
    revoked = await client.delete(f"{url}/{managers['id']}", headers=world.admin.headers)
    assert revoked.status_code == 200
    assert (await client.get(path_of(managers))).status_code == 404
    entries = await audit_entries(managers["id"])
    last = entries[-1]
    assert (last.action, last.actor_user_id) == ("calendar_feed.revoked", world.admin.id)
    assert last.project_id == world.project.id


async def test_another_projects_feed_id_is_404(client: httpx.AsyncClient, world: World) -> None:
    other = await make_world()
    feed = await make_feed(client, other.owner.headers, other.project.id)
    response = await client.delete(
        f"{project_feeds(world.project.id)}/{feed['id']}", headers=world.owner.headers
    )
    assert response.status_code == 404
    # And the other workspace's project itself is hidden.
    hidden = await client.post(
        project_feeds(other.project.id), json={}, headers=world.owner.headers
    )
    assert hidden.status_code == 404
    assert (await client.get(path_of(feed))).status_code == 200


async def test_externals_and_api_keys_create_no_project_feed(
    client: httpx.AsyncClient, world: World
) -> None:
    url = project_feeds(world.project.id)
    for role in ("CLIENT", "CONTRACTOR"):
        outsider = await external(world, role, name=f"Ext {new_id()}")
        refused = await client.post(url, json={}, headers=outsider.headers)
        assert refused.status_code == 403, role
        assert "your own" in refused.json()["error"]
        # Their personal feed works.
        await make_feed(client, outsider.headers)
    raw, _ = await create_api_key(world.project, ["project:read", "schedule:read"])
    for method in ("GET", "POST"):
        response = await client.request(method, url, json={}, headers=key_headers(raw))
        assert response.status_code == 403, method
    assert (await client.post(ME, json={}, headers=key_headers(raw))).status_code == 403
    assert await _count(world.project.id) == 0


async def test_signed_out_callers_are_401(client: httpx.AsyncClient, world: World) -> None:
    assert (await client.get(ME)).status_code == 401
    assert (await client.post(ME, json={})).status_code == 401
    assert (await client.get(project_feeds(world.project.id))).status_code == 401
