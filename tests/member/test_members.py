from plumbline.config import settings
from tests.factories import (
    QueryCounter,
    add_member,
    create_project,
    create_user,
    create_workspace,
    link_in,
    make_world,
    read_mails,
)
from tests.member.helpers import audit_actions, membership, project_roles, unique, ws_url


def members_url(world, user_id: str = "", rest: str = "") -> str:  # type: ignore[no-untyped-def]
    return ws_url(world.workspace.id, f"/members/{user_id}{rest}" if user_id else "/members")


async def test_list_shows_roles_externals_and_restrictions(client, world):
    restricted, external = await create_user(name="Rita"), await create_user(name="Ext")
    await add_member(world.workspace, restricted, "MEMBER", project_ids=[world.project.id])
    await add_member(
        world.workspace, external, external_role="CLIENT", project_ids=[world.project.id]
    )
    response = await client.get(members_url(world), headers=world.member.headers)
    assert response.status_code == 200
    by_id = {m["userId"]: m for m in response.json()}
    assert len(by_id) == 6
    owner = by_id[world.owner.id]
    assert owner == {
        "userId": world.owner.id,
        "name": "Olivia Owner",
        "email": world.owner.user.email,
        "role": "SUPER_ADMIN",
        "isExternal": False,
        "projectIds": None,
        "joinedAt": owner["joinedAt"],
    }
    assert owner["joinedAt"].endswith("Z")
    assert by_id[restricted.id]["projectIds"] == [world.project.id]
    assert by_id[external.id]["isExternal"] is True
    assert by_id[external.id]["projectIds"] == [world.project.id]
    # newest first, limit/cursor pagination
    first = await client.get(members_url(world), params={"limit": 4}, headers=world.member.headers)
    assert [m["userId"] for m in first.json()][:2] == [external.id, restricted.id]
    assert 'rel="next"' in first.headers["link"]
    rest = await client.get(
        first.headers["link"].split(";")[0].strip("<>"), headers=world.member.headers
    )
    assert len(rest.json()) == 2 and "link" not in rest.headers
    # externals do not see the directory; strangers do not see the workspace
    assert (await client.get(members_url(world), headers=external.headers)).status_code == 403
    stranger = await create_user()
    assert (await client.get(members_url(world), headers=stranger.headers)).status_code == 404
    assert (await client.get(members_url(world))).status_code == 401


async def test_list_runs_a_fixed_number_of_queries(client):
    owner = await create_user()
    workspace = await create_workspace(owner)
    url = ws_url(workspace.id, "/members")
    with QueryCounter() as one:
        response = await client.get(url, headers=owner.headers)
    assert len(response.json()) == 1
    projects = [await create_project(workspace, name=f"P{i}") for i in range(3)]
    for i in range(30):
        user = await create_user()
        if i % 3 == 0:
            await add_member(workspace, user, project_ids=[p.id for p in projects])
        elif i % 3 == 1:
            await add_member(
                workspace, user, external_role="CONTRACTOR", project_ids=[projects[0].id]
            )
        else:
            await add_member(workspace, user, "MANAGER")
    with QueryCounter() as many:
        response = await client.get(url, headers=owner.headers)
    assert len(response.json()) == 31
    assert one.count == many.count <= 4


async def test_adding_by_email_invites_whether_or_not_an_account_exists(client, world, outbox):
    existing = await create_user(name="Nia New")
    nobody = f"{unique('nobody')}@example.com"
    answers = []
    for email in (existing.user.email, nobody):
        response = await client.post(
            members_url(world),
            json={"email": f"  {email.upper()} ", "role": "MANAGER"},
            headers=world.admin.headers,
        )
        assert response.status_code == 200, response.text
        answers.append(response.json())
        # an invite, not a membership: nothing in the answer says whether the account exists
        assert response.json()["email"] == email and response.json()["acceptedAt"] is None
        assert len(read_mails(outbox, to=email)) == 1
    assert [sorted(a) for a in answers] == [sorted(answers[0])] * 2
    assert [{k: a[k] for k in ("role", "kind", "sendCount")} for a in answers] == [
        {"role": "MANAGER", "kind": "INTERNAL", "sendCount": 1}
    ] * 2
    assert await membership(world.workspace.id, existing.id) is None
    assert (
        await client.get(ws_url(world.workspace.id), headers=existing.headers)
    ).status_code == 404
    # the person joins only by accepting the e-mailed link
    token = link_in(read_mails(outbox, to=existing.user.email)[0]).rsplit("/", 1)[1]
    accepted = await client.post(f"/api/v1/email-invites/{token}/accept", headers=existing.headers)
    assert accepted.status_code == 200, accepted.text
    assert (await membership(world.workspace.id, existing.id)).role == "MANAGER"
    newcomer = await create_user(email_address=nobody, verified=False)
    assert await membership(world.workspace.id, newcomer.id) is None
    token = link_in(read_mails(outbox, to=nobody)[0]).rsplit("/", 1)[1]
    accepted = await client.post(f"/api/v1/email-invites/{token}/accept", headers=newcomer.headers)
    assert accepted.status_code == 200, accepted.text
    assert (await membership(world.workspace.id, newcomer.id)).role == "MANAGER"
    again = await client.post(
        members_url(world), json={"email": existing.user.email}, headers=world.admin.headers
    )
    assert again.status_code == 409


async def test_add_refusals(client, world, outbox):
    url = members_url(world)
    candidate = await create_user()
    for body in ({"email": "not-an-email"}, {"email": candidate.user.email, "role": "OWNER"}, {}):
        assert (await client.post(url, json=body, headers=world.admin.headers)).status_code == 400
    for actor in (world.manager, world.member):
        response = await client.post(
            url, json={"email": candidate.user.email}, headers=actor.headers
        )
        assert response.status_code == 403
    stranger = await create_user()
    other = await client.post(url, json={"email": candidate.user.email}, headers=stranger.headers)
    assert other.status_code == 404
    assert (await client.post(url, json={"email": candidate.user.email})).status_code == 401
    # only a SUPER_ADMIN grants SUPER_ADMIN
    grant = {"email": candidate.user.email, "role": "SUPER_ADMIN"}
    assert (await client.post(url, json=grant, headers=world.admin.headers)).status_code == 403
    assert read_mails(outbox, to=candidate.user.email) == []
    granted = await client.post(url, json=grant, headers=world.owner.headers)
    assert granted.status_code == 200 and granted.json()["role"] == "SUPER_ADMIN"
    assert await membership(world.workspace.id, candidate.id) is None


async def test_change_role(client, world):
    response = await client.patch(
        members_url(world, world.member.id), json={"role": "MANAGER"}, headers=world.admin.headers
    )
    assert response.status_code == 200 and response.json()["role"] == "MANAGER"
    entry = (await audit_actions(world.workspace.id, world.member.id))[-1]
    assert entry.action == "member.role_changed" and entry.changes == {
        "role": ["MEMBER", "MANAGER"]
    }
    for actor in (world.manager, world.member):
        refused = await client.patch(
            members_url(world, world.admin.id), json={"role": "MEMBER"}, headers=actor.headers
        )
        assert refused.status_code == 403
    missing = await client.patch(
        members_url(world, "nobody"), json={"role": "MEMBER"}, headers=world.admin.headers
    )
    assert missing.status_code == 404
    bad = await client.patch(
        members_url(world, world.member.id), json={"role": "KING"}, headers=world.admin.headers
    )
    assert bad.status_code == 400
    anonymous = await client.patch(members_url(world, world.member.id), json={"role": "MEMBER"})
    assert anonymous.status_code == 401


async def test_promoting_to_admin_lifts_a_project_restriction(client, world):
    restricted = await create_user()
    await add_member(world.workspace, restricted, project_ids=[world.project.id])
    response = await client.patch(
        members_url(world, restricted.id), json={"role": "ADMIN"}, headers=world.admin.headers
    )
    assert response.json()["projectIds"] is None
    assert (await membership(world.workspace.id, restricted.id)).restricted is False
    assert await project_roles(world.workspace.id, restricted.id) == {}


async def test_super_admin_rules(client, world):
    owner_url = members_url(world, world.owner.id)
    # an ADMIN can neither demote a SUPER_ADMIN nor promote anyone to SUPER_ADMIN
    demote = await client.patch(owner_url, json={"role": "ADMIN"}, headers=world.admin.headers)
    assert demote.status_code == 403
    promote = await client.patch(
        members_url(world, world.manager.id),
        json={"role": "SUPER_ADMIN"},
        headers=world.admin.headers,
    )
    assert promote.status_code == 403
    assert (await client.delete(owner_url, headers=world.admin.headers)).status_code == 403
    # the last SUPER_ADMIN can neither be demoted nor leave
    last = await client.patch(owner_url, json={"role": "ADMIN"}, headers=world.owner.headers)
    assert last.status_code == 409 and last.json()["code"] == "CONFLICT"
    assert (await client.delete(owner_url, headers=world.owner.headers)).status_code == 409
    assert (await membership(world.workspace.id, world.owner.id)).role == "SUPER_ADMIN"
    # with a second SUPER_ADMIN both work
    second = await client.patch(
        members_url(world, world.admin.id),
        json={"role": "SUPER_ADMIN"},
        headers=world.owner.headers,
    )
    assert second.status_code == 200
    stepped_down = await client.patch(
        owner_url, json={"role": "ADMIN"}, headers=world.owner.headers
    )
    assert stepped_down.status_code == 200 and stepped_down.json()["role"] == "ADMIN"
    assert (
        await client.delete(members_url(world, world.admin.id), headers=world.admin.headers)
    ).status_code == 409


async def test_remove_and_leave(client, world):
    assert (
        await client.delete(members_url(world, world.manager.id), headers=world.member.headers)
    ).status_code == 403
    removed = await client.delete(members_url(world, world.manager.id), headers=world.admin.headers)
    assert removed.status_code == 200 and removed.json() == {"ok": True}
    assert (
        await client.get(ws_url(world.workspace.id), headers=world.manager.headers)
    ).status_code == 404
    left = await client.delete(members_url(world, world.member.id), headers=world.member.headers)
    assert left.status_code == 200
    assert await membership(world.workspace.id, world.member.id) is None
    actions = [a.action for a in await audit_actions(world.workspace.id)]
    assert actions[-2:] == ["member.removed", "member.left"]
    missing = await client.delete(members_url(world, "nobody"), headers=world.admin.headers)
    assert missing.status_code == 404
    assert (await client.delete(members_url(world, world.admin.id))).status_code == 401
    # an external may leave; their project rows go with them
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CLIENT", project_ids=[world.project.id]
    )
    assert (
        await client.delete(members_url(world, external.id), headers=external.headers)
    ).status_code == 200
    assert await project_roles(world.workspace.id, external.id) == {}


async def test_project_access_for_internal_members(client, world):
    second = await create_project(world.workspace, name="Second")
    url = members_url(world, world.member.id, "/project-access")
    restricted = await client.patch(
        url,
        json={"projectIds": [second.id, world.project.id, second.id]},
        headers=world.admin.headers,
    )
    assert restricted.status_code == 200, restricted.text
    assert restricted.json()["projectIds"] == sorted([second.id, world.project.id])
    assert (await membership(world.workspace.id, world.member.id)).restricted is True
    assert await project_roles(world.workspace.id, world.member.id) == {
        second.id: None,
        world.project.id: None,
    }
    narrowed = await client.patch(
        url, json={"projectIds": [second.id]}, headers=world.admin.headers
    )
    assert narrowed.json()["projectIds"] == [second.id]
    lifted = await client.patch(url, json={"projectIds": None}, headers=world.admin.headers)
    assert lifted.json()["projectIds"] is None
    assert (await membership(world.workspace.id, world.member.id)).restricted is False
    assert await project_roles(world.workspace.id, world.member.id) == {}
    entries = await audit_actions(world.workspace.id, world.member.id)
    assert [e.action for e in entries] == ["member.project_access_changed"] * 3
    assert entries[-1].changes == {"projectIds": [[second.id], None]}


async def test_project_access_refusals(client, world):
    url = members_url(world, world.member.id, "/project-access")
    other = await make_world()
    foreign = await client.patch(
        url, json={"projectIds": [other.project.id]}, headers=world.admin.headers
    )
    assert foreign.status_code == 400
    assert (await client.patch(url, json={}, headers=world.admin.headers)).status_code == 400
    admins = await client.patch(
        members_url(world, world.admin.id, "/project-access"),
        json={"projectIds": [world.project.id]},
        headers=world.owner.headers,
    )
    assert admins.status_code == 400
    for actor in (world.manager, world.member):
        response = await client.patch(url, json={"projectIds": None}, headers=actor.headers)
        assert response.status_code == 403
    assert (
        await client.patch(url, json={"projectIds": None}, headers=other.owner.headers)
    ).status_code == 404
    assert (
        await client.patch(
            members_url(world, "nobody", "/project-access"),
            json={"projectIds": None},
            headers=world.admin.headers,
        )
    ).status_code == 404
    assert (await membership(world.workspace.id, world.member.id)).restricted is False


async def test_project_access_for_externals_keeps_their_project_role(client, world):
    second = await create_project(world.workspace, name="Second")
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="SUBCONTRACTOR", project_ids=[world.project.id]
    )
    url = members_url(world, external.id, "/project-access")
    response = await client.patch(
        url, json={"projectIds": [second.id]}, headers=world.admin.headers
    )
    assert response.status_code == 200
    assert response.json()["projectIds"] == [second.id]
    assert await project_roles(world.workspace.id, external.id) == {second.id: "SUBCONTRACTOR"}
    for body in ({"projectIds": None}, {"projectIds": []}):
        assert (await client.patch(url, json=body, headers=world.admin.headers)).status_code == 400
    role = await client.patch(
        members_url(world, external.id), json={"role": "ADMIN"}, headers=world.admin.headers
    )
    assert role.status_code == 400


async def _invite(client, world, outbox, actor) -> str:  # type: ignore[no-untyped-def]
    """Adds the actor's e-mail through the members route; the accept URL from the e-mail."""
    email = actor.user.email
    sent = await client.post(members_url(world), json={"email": email}, headers=world.admin.headers)
    assert sent.status_code == 200, sent.text
    token = link_in(read_mails(outbox, to=email)[-1]).rsplit("/", 1)[1]
    return f"/api/v1/email-invites/{token}/accept"


async def test_seat_limit_with_billing_on(client, monkeypatch, outbox):
    monkeypatch.setattr(settings, "billing", "local")
    world = await make_world(plan="team")  # 5 seats: owner, admin, manager, member + 1
    fifth, sixth = await create_user(), await create_user()
    accept = await _invite(client, world, outbox, fifth)
    assert (await client.post(accept, headers=fifth.headers)).status_code == 200
    # the invite goes out; accepting it finds no seat
    accept = await _invite(client, world, outbox, sixth)
    full = await client.post(accept, headers=sixth.headers)
    assert full.status_code == 402 and full.json()["code"] == "SEAT_LIMIT_REACHED"
    assert await membership(world.workspace.id, sixth.id) is None
    # externals use no seat
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CLIENT", project_ids=[world.project.id]
    )
    # a freed seat can be used again
    await client.delete(members_url(world, fifth.id), headers=world.admin.headers)
    assert (await client.post(accept, headers=sixth.headers)).status_code == 200
    # with billing off there is no limit
    monkeypatch.setattr(settings, "billing", "off")
    seventh = await create_user()
    accept = await _invite(client, world, outbox, seventh)
    assert (await client.post(accept, headers=seventh.headers)).status_code == 200
