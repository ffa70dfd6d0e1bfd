from datetime import datetime, timedelta

from plumbline.config import settings
from tests.factories import create_user, set_workspace
from tests.member.helpers import API, audit_actions, member_of, unique, workspace_row, ws_url

GIB = 1024**3


async def test_create_derives_a_unique_slug_and_makes_the_creator_super_admin(client):
    creator = await create_user(name="Cara Creator")
    name = unique("Bob's Builders")
    first = await client.post(f"{API}/workspaces", json={"name": name}, headers=creator.headers)
    assert first.status_code == 200, first.text
    body = first.json()
    expected_slug = name.lower().replace("'", "-").replace(" ", "-")
    assert body["slug"] == expected_slug
    assert body["name"] == name
    assert body["plan"] == "trial" and body["subscriptionStatus"] == "trialing"
    assert body["logo"] is None and body["primaryColor"] is None
    assert body["storageUsedBytes"] == 0 and body["storageQuotaBytes"] is None
    created = datetime.fromisoformat(body["createdAt"])
    assert datetime.fromisoformat(body["trialEndsAt"]) - created == timedelta(days=14)

    second = await client.post(f"{API}/workspaces", json={"name": name}, headers=creator.headers)
    third = await client.post(f"{API}/workspaces", json={"name": name}, headers=creator.headers)
    assert second.json()["slug"] == f"{expected_slug}-2"
    assert third.json()["slug"] == f"{expected_slug}-3"

    me = await member_of(client, body["id"], creator.id, creator.headers)
    assert me is not None and me["role"] == "SUPER_ADMIN" and me["projectIds"] is None
    actions = [a.action for a in await audit_actions(body["id"])]
    assert actions == ["workspace.created"]


async def test_create_with_an_explicit_slug(client):
    creator = await create_user()
    slug = unique("site-crew")
    response = await client.post(
        f"{API}/workspaces",
        json={"name": "Site crew", "slug": slug.upper()},
        headers=creator.headers,
    )
    assert response.status_code == 200
    assert response.json()["slug"] == slug
    taken = await client.post(
        f"{API}/workspaces", json={"name": "Other", "slug": slug}, headers=creator.headers
    )
    assert taken.status_code == 409 and taken.json()["code"] == "CONFLICT"


async def test_create_refuses_bad_input_and_strangers(client):
    creator = await create_user()
    for body in ({"name": "   "}, {}, {"name": "x", "slug": "Not a slug!"}, {"name": "x" * 201}):
        response = await client.post(f"{API}/workspaces", json=body, headers=creator.headers)
        assert response.status_code == 400, body
        assert response.json()["code"] == "VALIDATION_FAILED"
    anonymous = await client.post(f"{API}/workspaces", json={"name": "Nope"})
    assert anonymous.status_code == 401
    unverified = await create_user(verified=False)
    refused = await client.post(
        f"{API}/workspaces", json={"name": "Nope"}, headers=unverified.headers
    )
    assert refused.status_code == 403 and refused.json()["code"] == "EMAIL_NOT_VERIFIED"


async def test_a_slug_made_of_symbols_falls_back(client):
    creator = await create_user()
    response = await client.post(f"{API}/workspaces", json={"name": "!!!"}, headers=creator.headers)
    assert response.status_code == 200
    assert response.json()["slug"].startswith("workspace")


async def test_storage_quota_shows_when_billing_is_on(client, world, monkeypatch):
    monkeypatch.setattr(settings, "billing", "local")
    response = await client.get(ws_url(world.workspace.id), headers=world.member.headers)
    assert response.json()["storageQuotaBytes"] == 10 * GIB


async def test_get_is_for_members_only(client, world):
    for actor in (world.owner, world.admin, world.manager, world.member):
        response = await client.get(ws_url(world.workspace.id), headers=actor.headers)
        assert response.status_code == 200
        assert response.json()["id"] == world.workspace.id
    stranger = await create_user()
    assert (
        await client.get(ws_url(world.workspace.id), headers=stranger.headers)
    ).status_code == 404
    assert (await client.get(ws_url("nope"), headers=world.owner.headers)).status_code == 404
    assert (await client.get(ws_url(world.workspace.id))).status_code == 401


async def test_logo_is_a_public_url_when_set(client, world):
    await set_workspace(world.workspace.id, logo_key="logos/x.png")
    body = (await client.get(ws_url(world.workspace.id), headers=world.member.headers)).json()
    assert body["logo"] == f"/api/v1/public/workspaces/{world.workspace.id}/logo"


async def test_update_name_slug_and_colour(client, world):
    slug = unique("renamed")
    response = await client.patch(
        ws_url(world.workspace.id),
        json={"name": "  Renamed Co  ", "slug": slug, "primaryColor": "#12abef"},
        headers=world.admin.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["name"], body["slug"], body["primaryColor"]) == ("Renamed Co", slug, "#12ABEF")
    # only the given fields change; null clears the colour
    cleared = await client.patch(
        ws_url(world.workspace.id), json={"primaryColor": None}, headers=world.owner.headers
    )
    assert cleared.json()["primaryColor"] is None and cleared.json()["name"] == "Renamed Co"
    entries = [
        a for a in await audit_actions(world.workspace.id) if a.action == "workspace.updated"
    ]
    assert len(entries) == 2
    assert entries[0].changes["slug"][1] == slug and entries[0].project_id is None
    assert entries[1].changes == {"primaryColor": ["#12ABEF", None]}


async def test_update_refusals(client, world):
    url = ws_url(world.workspace.id)
    for actor in (world.manager, world.member):
        response = await client.patch(url, json={"name": "Mine"}, headers=actor.headers)
        assert response.status_code == 403
    stranger = await create_user()
    assert (
        await client.patch(url, json={"name": "x"}, headers=stranger.headers)
    ).status_code == 404
    assert (await client.patch(url, json={"name": "x"})).status_code == 401
    for body in (
        {"primaryColor": "red"},
        {"primaryColor": "#12345"},
        {"name": None},
        {"slug": "A B"},
    ):
        response = await client.patch(url, json=body, headers=world.admin.headers)
        assert response.status_code == 400, body
    other = await client.post(
        f"{API}/workspaces", json={"name": "Other"}, headers=world.owner.headers
    )
    taken = await client.patch(
        url, json={"slug": other.json()["slug"]}, headers=world.admin.headers
    )
    assert taken.status_code == 409
    assert (await workspace_row(world.workspace.id)).name == "Acme Builders"


async def test_delete_is_for_the_super_admin_and_hides_the_workspace(client, world):
    url = ws_url(world.workspace.id)
    for actor in (world.admin, world.manager, world.member):
        assert (await client.delete(url, headers=actor.headers)).status_code == 403
    assert (await client.delete(url)).status_code == 401
    response = await client.delete(url, headers=world.owner.headers)
    assert response.status_code == 200 and response.json() == {"ok": True}
    for actor in (world.owner, world.member):
        assert (await client.get(url, headers=actor.headers)).status_code == 404
        assert (await client.get(f"{url}/members", headers=actor.headers)).status_code == 404
    assert (await client.delete(url, headers=world.owner.headers)).status_code == 404
    row = await workspace_row(world.workspace.id)
    assert row is not None and row.deleted_at is not None
    assert [a.action for a in await audit_actions(world.workspace.id)][-1] == "workspace.deleted"
