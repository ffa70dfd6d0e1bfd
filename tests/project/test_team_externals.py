"""What an external collaborator sees on `GET /projects/{p}/team` (docs/decisions.md): the
internal team of the project by name and role, and themselves; no other member's e-mail and
nothing of the other externals."""

from __future__ import annotations

import pytest

from tests.factories import Actor, World, add_member, create_project, create_user, external


async def _team(client, world: World, actor: Actor) -> dict[str, dict[str, object]]:
    response = await client.get(f"/api/v1/projects/{world.project.id}/team", headers=actor.headers)
    assert response.status_code == 200, response.text
    return {m["userId"]: m for m in response.json()}


async def _staff(world: World) -> tuple[Actor, Actor, Actor]:
    """Another external on the project, a member restricted to it, one restricted elsewhere."""
    elsewhere = await create_project(world.workspace, name="Elsewhere")
    sub = await external(world, "SUBCONTRACTOR", name="Sam Sub")
    named = await create_user(name="Nina Named")
    hidden = await create_user(name="Hugo Hidden")
    await add_member(world.workspace, named, "MEMBER", project_ids=[world.project.id])
    await add_member(world.workspace, hidden, "MEMBER", project_ids=[elsewhere.id])
    return sub, named, hidden


@pytest.mark.parametrize("role", ["CLIENT", "CONTRACTOR", "SUBCONTRACTOR"])
async def test_an_external_sees_the_internal_team_by_name_and_role(client, world, role):
    sub, named, hidden = await _staff(world)
    caller = await external(world, role, name="Ed External")
    other = await external(world, "CLIENT" if role != "CLIENT" else "CONTRACTOR", name="Olga")

    team = await _team(client, world, caller)

    internal = [world.owner, world.admin, world.manager, world.member, named]
    assert set(team) == {a.id for a in [*internal, caller]}
    for gone in (sub, other, hidden):
        assert gone.id not in team
    assert team[world.manager.id] == {
        "userId": world.manager.id,
        "name": world.manager.user.name,
        "email": None,
        "role": "MANAGER",
        "projectRole": None,
        "isExternal": False,
    }
    assert all(team[a.id]["email"] is None for a in internal)
    assert team[caller.id] == {
        "userId": caller.id,
        "name": "Ed External",
        "email": caller.user.email,
        "role": "MEMBER",
        "projectRole": role,
        "isExternal": True,
    }


async def test_members_still_see_everyone_with_e_mails(client, world):
    sub, named, _ = await _staff(world)
    client_user = await external(world, "CLIENT", name="Cleo Client")
    for actor in (world.member, world.owner):
        team = await _team(client, world, actor)
        assert team[sub.id]["email"] == sub.user.email
        assert team[client_user.id]["email"] == client_user.user.email
        assert team[named.id]["email"] == named.user.email
        assert team[world.manager.id]["email"] == world.manager.user.email


async def test_an_externals_pages_hold_only_what_they_may_see(client, world):
    for n in range(3):
        await external(world, "CONTRACTOR", name=f"Extra {n}")
    caller = await external(world, "CLIENT", name="Cleo Client")
    url = f"/api/v1/projects/{world.project.id}/team"
    seen: list[str] = []
    page = await client.get(url, params={"limit": 2}, headers=caller.headers)
    while True:
        assert page.status_code == 200
        seen += [m["userId"] for m in page.json()]
        link = page.headers.get("Link")
        if not link:
            break
        page = await client.get(link[1 : link.index(">")], headers=caller.headers)
    internal = {a.id for a in (world.owner, world.admin, world.manager, world.member)}
    assert sorted(seen) == sorted(internal | {caller.id})
