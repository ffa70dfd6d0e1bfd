"""GET /api/v1/me and PATCH /api/v1/me/viewer-presence."""

from sqlalchemy import select, update

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import User, Workspace
from tests.factories import (
    QueryCounter,
    add_member,
    create_api_key,
    create_user,
    create_workspace,
)


async def test_anonymous_me_is_401(client):
    response = await client.get("/api/v1/me")
    assert response.status_code == 401
    assert response.json() == {"error": "Unauthorized", "code": "UNAUTHORIZED"}


async def test_me_lists_the_callers_live_workspaces_with_roles(client, world):
    other_owner = await create_user(name="Stranger")
    elsewhere = await create_workspace(other_owner, name="Elsewhere")
    deleted = await create_workspace(world.member, name="Old Co")
    await add_member(elsewhere, world.member, "MANAGER")
    async with database.sessionmaker() as db:
        await db.execute(
            update(Workspace).where(Workspace.id == deleted.id).values(deleted_at=clock.now())
        )
        await db.commit()

    response = await client.get("/api/v1/me", headers=world.member.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["user"] == {
        "id": world.member.id,
        "name": "Mel Member",
        "email": world.member.user.email,
    }
    assert sorted(body["workspaces"], key=lambda w: w["name"]) == [
        {
            "id": world.workspace.id,
            "name": "Acme Builders",
            "slug": world.workspace.slug,
            "role": "MEMBER",
        },
        {"id": elsewhere.id, "name": "Elsewhere", "slug": elsewhere.slug, "role": "MANAGER"},
    ]
    owner = await client.get("/api/v1/me", headers=world.owner.headers)
    assert owner.json()["workspaces"][0]["role"] == "SUPER_ADMIN"


async def test_me_works_for_an_unverified_user(client):
    actor = await create_user(verified=False)
    response = await client.get("/api/v1/me", headers=actor.headers)
    assert response.status_code == 200
    assert response.json() == {
        "user": {"id": actor.id, "name": "Test User", "email": actor.user.email},
        "workspaces": [],
    }


async def test_me_runs_the_same_queries_for_1_and_30_workspaces(client):
    counts = []
    for size in (1, 30):
        actor = await create_user()
        for n in range(size):
            await create_workspace(actor, name=f"Company {n}")
        with QueryCounter() as q:
            response = await client.get("/api/v1/me", headers=actor.headers)
        assert response.status_code == 200
        assert len(response.json()["workspaces"]) == size
        counts.append(q.count)
    assert counts[0] == counts[1] <= 2


async def test_api_key_on_me_is_403(client, world):
    raw, _ = await create_api_key(world.project, ["issues:read"])
    response = await client.get("/api/v1/me", headers={"x-api-key": raw})
    assert response.status_code == 403
    assert response.json()["error"] == "API keys are accepted on project-scoped routes only"


async def test_api_key_in_the_cookie_is_401(client, world):
    raw, _ = await create_api_key(world.project, ["issues:read"])
    response = await client.get("/api/v1/me", headers={"Cookie": f"auth.session_token={raw}"})
    assert response.status_code == 401
    assert response.json()["error"] == "API keys must be sent in the x-api-key header"


async def test_viewer_presence_sets_the_flag(client):
    actor = await create_user()
    hidden = await client.patch(
        "/api/v1/me/viewer-presence", json={"hidden": True}, headers=actor.headers
    )
    assert hidden.status_code == 200 and hidden.json() == {"hidden": True}
    async with database.sessionmaker() as db:
        flag = (await db.execute(select(User.presence_hidden).where(User.id == actor.id))).scalar()
        assert flag is True
    shown = await client.patch(
        "/api/v1/me/viewer-presence", json={"hidden": False}, headers=actor.headers
    )
    assert shown.json() == {"hidden": False}
    async with database.sessionmaker() as db:
        flag = (await db.execute(select(User.presence_hidden).where(User.id == actor.id))).scalar()
        assert flag is False


async def test_viewer_presence_failures(client):
    actor = await create_user()
    for bad in ({}, {"hidden": "maybe"}, {"hidden": None}):
        response = await client.patch("/api/v1/me/viewer-presence", json=bad, headers=actor.headers)
        assert response.status_code == 400, bad
        assert response.json()["code"] == "VALIDATION_FAILED"
    anonymous = await client.patch("/api/v1/me/viewer-presence", json={"hidden": True})
    assert anonymous.status_code == 401
    unverified = await create_user(verified=False)
    refused = await client.patch(
        "/api/v1/me/viewer-presence", json={"hidden": True}, headers=unverified.headers
    )
    assert refused.status_code == 403 and refused.json()["code"] == "EMAIL_NOT_VERIFIED"
    foreign = await client.patch(
        "/api/v1/me/viewer-presence",
        json={"hidden": True},
        headers={**actor.headers, "Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
