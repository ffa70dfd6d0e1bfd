"""E-mail invites: management routes (accepting is in tests/portal)."""

from datetime import datetime, timedelta

from plumbline.kit import clock
from tests.factories import (
    QueryCounter,
    add_member,
    create_project,
    create_user,
    link_in,
    make_world,
    read_mails,
)
from tests.member.helpers import audit_actions, unique, ws_url


def url(world, invite_id: str = "", rest: str = "") -> str:  # type: ignore[no-untyped-def]
    return ws_url(
        world.workspace.id, f"/email-invites/{invite_id}{rest}" if invite_id else "/email-invites"
    )


def address() -> str:
    return f"{unique('invitee')}@example.com"


async def test_send_queues_an_email_with_the_accept_link(client, world, outbox):
    email = address()
    response = await client.post(
        url(world), json={"email": email.upper()}, headers=world.admin.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["email"] == email and body["role"] == "MEMBER" and body["kind"] == "INTERNAL"
    assert body["projectIds"] == [] and body["acceptedAt"] is None and body["sendCount"] == 1
    assert body["lastSentAt"] == body["createdAt"]
    assert datetime.fromisoformat(body["expiresAt"]) - datetime.fromisoformat(
        body["createdAt"]
    ) == timedelta(days=14)
    mails = read_mails(outbox, to=email)
    assert len(mails) == 1
    assert "Acme Builders" in mails[0]["Subject"] and "Ada Admin" in mails[0]["Subject"]
    assert link_in(mails[0]).startswith("http://127.0.0.1:8000/account/invite/")
    listed = await client.get(url(world), headers=world.owner.headers)
    assert listed.json() == [body]
    entry = (await audit_actions(world.workspace.id))[-1]
    assert entry.action == "email_invite.created" and entry.changes["email"] == [None, email]


async def test_external_invites_need_projects_of_the_workspace(client, world, outbox):
    email = address()
    for body in (
        {"email": email, "kind": "CLIENT"},
        {"email": email, "kind": "CLIENT", "projectIds": []},
        {"email": email, "kind": "CLIENT", "projectIds": [(await make_world()).project.id]},
        {"email": email, "kind": "CONTRACTOR", "role": "ADMIN", "projectIds": [world.project.id]},
        {"email": email, "kind": "INTERNAL", "role": "ADMIN", "projectIds": [world.project.id]},
        {"email": email, "kind": "OWNER", "projectIds": [world.project.id]},
        {"email": "nope", "kind": "CLIENT", "projectIds": [world.project.id]},
        {"email": email, "expiresInDays": 91},
    ):
        response = await client.post(url(world), json=body, headers=world.admin.headers)
        assert response.status_code == 400, body
    assert read_mails(outbox, to=email) == []
    ok = await client.post(
        url(world),
        json={
            "email": email,
            "kind": "SUBCONTRACTOR",
            "projectIds": [world.project.id],
            "expiresInDays": 90,
        },
        headers=world.admin.headers,
    )
    assert ok.status_code == 200
    assert ok.json()["projectIds"] == [world.project.id] and ok.json()["kind"] == "SUBCONTRACTOR"


async def test_duplicates_and_members_are_refused(client, world, outbox):
    email = address()
    first = await client.post(url(world), json={"email": email}, headers=world.admin.headers)
    assert first.status_code == 200
    again = await client.post(url(world), json={"email": email}, headers=world.admin.headers)
    assert again.status_code == 409
    member = await client.post(
        url(world), json={"email": world.member.user.email}, headers=world.admin.headers
    )
    assert member.status_code == 409
    # once the first is revoked, a new one may go out
    assert (
        await client.delete(url(world, first.json()["id"]), headers=world.admin.headers)
    ).status_code == 200
    assert (
        await client.post(url(world), json={"email": email}, headers=world.admin.headers)
    ).status_code == 200
    assert len(read_mails(outbox, to=email)) == 2


async def test_roles_and_tenancy(client, world):
    body = {"email": address()}
    for actor in (world.manager, world.member):
        assert (await client.post(url(world), json=body, headers=actor.headers)).status_code == 403
        assert (await client.get(url(world), headers=actor.headers)).status_code == 403
    stranger = await create_user()
    assert (await client.post(url(world), json=body, headers=stranger.headers)).status_code == 404
    assert (await client.post(url(world), json=body)).status_code == 401
    assert (await client.get(url(world))).status_code == 401
    top = {"email": address(), "role": "SUPER_ADMIN"}
    assert (await client.post(url(world), json=top, headers=world.admin.headers)).status_code == 403
    created = await client.post(url(world), json=top, headers=world.owner.headers)
    assert created.status_code == 200
    invite_id = created.json()["id"]
    # an ADMIN may not touch a SUPER_ADMIN invite
    assert (
        await client.post(url(world, invite_id, "/resend"), headers=world.admin.headers)
    ).status_code == 403
    assert (
        await client.patch(
            url(world, invite_id), json={"role": "MEMBER"}, headers=world.admin.headers
        )
    ).status_code == 403
    assert (
        await client.delete(url(world, invite_id), headers=world.admin.headers)
    ).status_code == 403
    other = await make_world()
    for method, path in (
        ("POST", f"/email-invites/{invite_id}/resend"),
        ("PATCH", f"/email-invites/{invite_id}"),
        ("DELETE", f"/email-invites/{invite_id}"),
    ):
        response = await client.request(
            method, ws_url(other.workspace.id, path), json={}, headers=other.owner.headers
        )
        assert response.status_code == 404, (method, path)


async def test_resend_sends_a_new_link(client, world, outbox):
    email = address()
    created = (
        await client.post(
            url(world), json={"email": email, "expiresInDays": 2}, headers=world.admin.headers
        )
    ).json()
    first_link = link_in(read_mails(outbox, to=email)[0])
    clock.set_now(clock.now() + timedelta(hours=1))
    response = await client.post(url(world, created["id"], "/resend"), headers=world.admin.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["sendCount"] == 2 and body["lastSentAt"] > created["lastSentAt"]
    # renewed to 14 days from the resend
    assert datetime.fromisoformat(body["expiresAt"]) - datetime.fromisoformat(
        body["lastSentAt"]
    ) == timedelta(days=14)
    mails = read_mails(outbox, to=email)
    assert len(mails) == 2
    second_link = link_in(mails[1])
    assert second_link != first_link
    old_token, new_token = first_link.rsplit("/", 1)[1], second_link.rsplit("/", 1)[1]
    assert (await client.get(f"/api/v1/email-invites/{old_token}")).status_code == 404
    assert (await client.get(f"/api/v1/email-invites/{new_token}")).status_code == 200
    assert [a.action for a in await audit_actions(world.workspace.id)][-1] == "email_invite.resent"
    assert (
        await client.post(url(world, "nope", "/resend"), headers=world.admin.headers)
    ).status_code == 404
    assert (await client.post(url(world, created["id"], "/resend"))).status_code == 401


async def test_resend_and_change_refuse_revoked_or_accepted_invites(client, world, outbox):
    email = address()
    created = (
        await client.post(url(world), json={"email": email}, headers=world.admin.headers)
    ).json()
    assert (
        await client.delete(url(world, created["id"]), headers=world.admin.headers)
    ).status_code == 200
    assert (
        await client.post(url(world, created["id"], "/resend"), headers=world.admin.headers)
    ).status_code == 404
    assert (await client.get(url(world), headers=world.admin.headers)).json() == []

    invitee = await create_user(email_address=address())
    sent = (
        await client.post(
            url(world), json={"email": invitee.user.email}, headers=world.admin.headers
        )
    ).json()
    token = link_in(read_mails(outbox, to=invitee.user.email)[0]).rsplit("/", 1)[1]
    assert (
        await client.post(f"/api/v1/email-invites/{token}/accept", headers=invitee.headers)
    ).status_code == 200
    for method, path, body in (
        ("POST", url(world, sent["id"], "/resend"), None),
        ("PATCH", url(world, sent["id"]), {"role": "MANAGER"}),
        ("DELETE", url(world, sent["id"]), None),
    ):
        response = await client.request(method, path, json=body, headers=world.admin.headers)
        assert response.status_code == 409, (method, path)
    listed = (await client.get(url(world), headers=world.admin.headers)).json()
    assert listed[0]["acceptedAt"] is not None


async def test_change_a_pending_invite(client, world):
    second = await create_project(world.workspace, name="Second")
    created = (
        await client.post(
            url(world), json={"email": address(), "role": "MANAGER"}, headers=world.admin.headers
        )
    ).json()
    target = url(world, created["id"])
    external = await client.patch(
        target,
        json={"kind": "CLIENT", "projectIds": [second.id], "expiresInDays": 1},
        headers=world.admin.headers,
    )
    assert external.status_code == 200, external.text
    body = external.json()
    # an external collaborator holds the MEMBER role
    assert (body["kind"], body["role"], body["projectIds"]) == ("CLIENT", "MEMBER", [second.id])
    assert datetime.fromisoformat(body["expiresAt"]) - clock.now() <= timedelta(days=1)
    for bad in (
        {"projectIds": []},
        {"role": "ADMIN"},
        {"projectIds": ["nope"]},
        {"expiresInDays": 0},
        {"kind": "BOSS"},
    ):
        assert (
            await client.patch(target, json=bad, headers=world.admin.headers)
        ).status_code == 400, bad
    internal = await client.patch(
        target, json={"kind": "INTERNAL", "projectIds": []}, headers=world.admin.headers
    )
    assert (internal.json()["kind"], internal.json()["projectIds"]) == ("INTERNAL", [])
    entry = (await audit_actions(world.workspace.id, created["id"]))[-1]
    assert entry.action == "email_invite.updated" and entry.changes["kind"] == [
        "CLIENT",
        "INTERNAL",
    ]
    assert (
        await client.patch(target, json={"role": "MEMBER"}, headers=world.manager.headers)
    ).status_code == 403
    assert (
        await client.patch(url(world, "nope"), json={}, headers=world.admin.headers)
    ).status_code == 404
    assert (await client.patch(target, json={})).status_code == 401


async def test_revoke(client, world):
    created = (
        await client.post(url(world), json={"email": address()}, headers=world.admin.headers)
    ).json()
    assert (
        await client.delete(url(world, created["id"]), headers=world.member.headers)
    ).status_code == 403
    assert (await client.delete(url(world, created["id"]))).status_code == 401
    response = await client.delete(url(world, created["id"]), headers=world.admin.headers)
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert (
        await client.delete(url(world, created["id"]), headers=world.admin.headers)
    ).status_code == 404
    assert [a.action for a in await audit_actions(world.workspace.id)][-1] == "email_invite.revoked"


async def test_list_runs_a_fixed_number_of_queries(client, world):
    await client.post(url(world), json={"email": address()}, headers=world.admin.headers)
    with QueryCounter() as one:
        assert len((await client.get(url(world), headers=world.admin.headers)).json()) == 1
    for _ in range(8):
        await client.post(
            url(world),
            json={"email": address(), "kind": "CLIENT", "projectIds": [world.project.id]},
            headers=world.admin.headers,
        )
    with QueryCounter() as many:
        assert len((await client.get(url(world), headers=world.admin.headers)).json()) == 9
    assert one.count == many.count


async def test_external_members_cannot_manage_invites(client, world):
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CLIENT", project_ids=[world.project.id]
    )
    assert (await client.get(url(world), headers=external.headers)).status_code == 403
