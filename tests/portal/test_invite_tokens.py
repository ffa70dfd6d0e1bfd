"""Invite token routes: look up and accept, for link invites and e-mail invites."""

from datetime import timedelta

from sqlalchemy import select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Notification
from tests.factories import add_member, create_project, create_user, link_in, make_world, read_mails
from tests.member.helpers import (
    API,
    audit_actions,
    is_verified,
    member_of,
    membership,
    project_roles,
    unique,
    ws_url,
)


async def make_link(client, world, role: str = "MEMBER", days: int = 14) -> str:  # type: ignore[no-untyped-def]
    response = await client.post(
        ws_url(world.workspace.id, "/invites"),
        json={"role": role, "expiresInDays": days},
        headers=world.admin.headers,
    )
    assert response.status_code == 200
    return str(response.json()["url"].rsplit("/", 1)[1])


async def send_email_invite(client, world, outbox, email: str, **fields) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Sends the invite and returns (invite id, token taken from the e-mail actually sent)."""
    response = await client.post(
        ws_url(world.workspace.id, "/email-invites"),
        json={"email": email, **fields},
        headers=world.admin.headers,
    )
    assert response.status_code == 200, response.text
    link = link_in(read_mails(outbox, to=email)[-1])
    assert link.startswith(f"{settings.public_url}/account/invite/")
    return response.json()["id"], link.rsplit("/", 1)[1]


async def notifications_of(user_id: str) -> list[Notification]:
    async with database.sessionmaker() as db:
        rows = await db.execute(select(Notification).where(Notification.user_id == user_id))
        return list(rows.scalars())


# Link invites


async def test_link_invite_preview_and_accept(client, world):
    token = await make_link(client, world, "MANAGER")
    preview = await client.get(f"{API}/invites/{token}")
    assert preview.status_code == 200
    body = preview.json()
    assert body["workspaceName"] == "Acme Builders" and body["role"] == "MANAGER"
    assert body["expiresAt"].endswith("Z")
    # accepting is exempt from e-mail verification
    joiner = await create_user(name="June Joiner", verified=False)
    accepted = await client.post(f"{API}/invites/{token}/accept", headers=joiner.headers)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json() == {"workspaceId": world.workspace.id, "role": "MANAGER"}
    row = await membership(world.workspace.id, joiner.id)
    assert row.role == "MANAGER" and row.is_external is False
    assert (await audit_actions(world.workspace.id, joiner.id))[-1].action == "invite.accepted"
    notes = [n for n in await notifications_of(world.admin.id) if n.kind == "INVITE_ACCEPTED"]
    assert len(notes) == 1 and notes[0].title == "June Joiner joined Acme Builders"
    assert notes[0].workspace_id == world.workspace.id
    assert await notifications_of(joiner.id) == []
    # the link is reusable until it expires or is revoked
    another = await create_user()
    assert (
        await client.post(f"{API}/invites/{token}/accept", headers=another.headers)
    ).status_code == 200


async def test_accepting_again_is_idempotent_and_keeps_the_role(client, world):
    token = await make_link(client, world, "ADMIN")
    assert (
        await client.post(f"{API}/invites/{token}/accept", headers=world.member.headers)
    ).json() == {
        "workspaceId": world.workspace.id,
        "role": "MEMBER",
    }
    assert (await membership(world.workspace.id, world.member.id)).role == "MEMBER"


async def test_link_invite_unknown_revoked_expired(client, world):
    assert (await client.get(f"{API}/invites/not-a-token")).status_code == 404
    user = await create_user()
    assert (
        await client.post(f"{API}/invites/not-a-token/accept", headers=user.headers)
    ).status_code == 404
    token = await make_link(client, world, days=1)
    assert (await client.post(f"{API}/invites/{token}/accept")).status_code == 401
    clock.set_now(clock.now() + timedelta(days=1, seconds=1))
    expired = await client.get(f"{API}/invites/{token}")
    assert expired.status_code == 410 and expired.json()["code"] == "EXPIRED"
    late = await client.post(f"{API}/invites/{token}/accept", headers=user.headers)
    assert late.status_code == 410
    clock.set_now(None)
    revoked_token = await make_link(client, world)
    invites = (
        await client.get(ws_url(world.workspace.id, "/invites"), headers=world.admin.headers)
    ).json()
    for invite in invites:
        await client.delete(
            ws_url(world.workspace.id, f"/invites/{invite['id']}"), headers=world.admin.headers
        )
    assert (await client.get(f"{API}/invites/{revoked_token}")).status_code == 404
    assert (
        await client.post(f"{API}/invites/{revoked_token}/accept", headers=user.headers)
    ).status_code == 404
    assert await membership(world.workspace.id, user.id) is None


async def test_link_invite_of_a_deleted_workspace_is_gone(client, world):
    token = await make_link(client, world)
    await client.delete(ws_url(world.workspace.id), headers=world.owner.headers)
    assert (await client.get(f"{API}/invites/{token}")).status_code == 404


async def test_link_invite_respects_the_seat_limit(client, monkeypatch):
    monkeypatch.setattr(settings, "billing", "local")
    world = await make_world(plan="team")
    token = await make_link(client, world)
    assert (
        await client.post(f"{API}/invites/{token}/accept", headers=(await create_user()).headers)
    ).status_code == 200
    sixth = await create_user()
    full = await client.post(f"{API}/invites/{token}/accept", headers=sixth.headers)
    assert full.status_code == 402 and full.json()["code"] == "SEAT_LIMIT_REACHED"
    assert await membership(world.workspace.id, sixth.id) is None


# E-mail invites


async def test_email_invite_end_to_end_for_an_external_collaborator(client, world, outbox):
    second = await create_project(world.workspace, name="Second")
    email = f"{unique('sub')}@example.com"
    invite_id, token = await send_email_invite(
        client, world, outbox, email, kind="SUBCONTRACTOR", projectIds=[world.project.id, second.id]
    )
    preview = await client.get(f"{API}/email-invites/{token}")
    assert preview.status_code == 200
    assert preview.json() == {
        "workspaceName": "Acme Builders",
        "role": "MEMBER",
        "expiresAt": preview.json()["expiresAt"],
        "email": email,
        "kind": "SUBCONTRACTOR",
    }
    invitee = await create_user(name="Sam Sub", email_address=email, verified=False)
    # not verified yet: ordinary routes refuse
    refused = await client.get(ws_url(world.workspace.id), headers=invitee.headers)
    assert refused.status_code == 403 and refused.json()["code"] == "EMAIL_NOT_VERIFIED"
    accepted = await client.post(f"{API}/email-invites/{token}/accept", headers=invitee.headers)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json() == {"workspaceId": world.workspace.id, "role": "MEMBER"}
    assert await is_verified(invitee.id)
    assert (
        await client.get(ws_url(world.workspace.id), headers=invitee.headers)
    ).status_code == 200
    member = await member_of(client, world.workspace.id, invitee.id, world.admin.headers)
    assert member["isExternal"] is True
    assert member["projectIds"] == sorted([world.project.id, second.id])
    assert await project_roles(world.workspace.id, invitee.id) == {
        world.project.id: "SUBCONTRACTOR",
        second.id: "SUBCONTRACTOR",
    }
    listed = (
        await client.get(ws_url(world.workspace.id, "/email-invites"), headers=world.admin.headers)
    ).json()
    assert next(i for i in listed if i["id"] == invite_id)["acceptedAt"] is not None
    notes = [n for n in await notifications_of(world.admin.id) if n.kind == "INVITE_ACCEPTED"]
    assert len(notes) == 1
    assert (await audit_actions(world.workspace.id, invitee.id))[
        -1
    ].action == "email_invite.accepted"
    # single use: the same user again is a no-op, anyone else is refused
    again = await client.post(f"{API}/email-invites/{token}/accept", headers=invitee.headers)
    assert again.status_code == 200
    other = await create_user(email_address=f"{unique('other')}@example.com")
    assert (
        await client.post(f"{API}/email-invites/{token}/accept", headers=other.headers)
    ).status_code == 409
    assert (await client.get(f"{API}/email-invites/{token}")).status_code == 409
    assert len(await notifications_of(world.admin.id)) == 1


async def test_email_invite_for_a_restricted_internal_member(client, world, outbox):
    email = f"{unique('int')}@example.com"
    _, token = await send_email_invite(
        client, world, outbox, email, role="MANAGER", projectIds=[world.project.id]
    )
    invitee = await create_user(email_address=email)
    accepted = await client.post(f"{API}/email-invites/{token}/accept", headers=invitee.headers)
    assert accepted.json() == {"workspaceId": world.workspace.id, "role": "MANAGER"}
    member = await member_of(client, world.workspace.id, invitee.id, world.admin.headers)
    assert (member["isExternal"], member["role"], member["projectIds"]) == (
        False,
        "MANAGER",
        [world.project.id],
    )
    assert await project_roles(world.workspace.id, invitee.id) == {world.project.id: None}


async def test_email_invite_for_an_unrestricted_internal_member(client, world, outbox):
    email = f"{unique('all')}@example.com"
    _, token = await send_email_invite(client, world, outbox, email)
    invitee = await create_user(email_address=email.upper())
    assert (
        await client.post(f"{API}/email-invites/{token}/accept", headers=invitee.headers)
    ).status_code == 200
    member = await member_of(client, world.workspace.id, invitee.id, world.admin.headers)
    assert (member["isExternal"], member["role"], member["projectIds"]) == (False, "MEMBER", None)


async def test_email_invite_requires_the_invited_address(client, world, outbox):
    email = f"{unique('right')}@example.com"
    _, token = await send_email_invite(client, world, outbox, email)
    wrong = await create_user(email_address=f"{unique('wrong')}@example.com", verified=False)
    response = await client.post(f"{API}/email-invites/{token}/accept", headers=wrong.headers)
    assert response.status_code == 403
    assert await membership(world.workspace.id, wrong.id) is None
    assert not await is_verified(wrong.id)
    assert (await client.post(f"{API}/email-invites/{token}/accept")).status_code == 401
    # the invite is still pending for the right person
    right = await create_user(email_address=email)
    assert (
        await client.post(f"{API}/email-invites/{token}/accept", headers=right.headers)
    ).status_code == 200


async def test_email_invite_expired_revoked_unknown(client, world, outbox):
    email = f"{unique('late')}@example.com"
    invite_id, token = await send_email_invite(client, world, outbox, email, expiresInDays=2)
    invitee = await create_user(email_address=email)
    clock.set_now(clock.now() + timedelta(days=2, minutes=1))
    expired = await client.get(f"{API}/email-invites/{token}")
    assert expired.status_code == 410 and expired.json()["code"] == "EXPIRED"
    assert (
        await client.post(f"{API}/email-invites/{token}/accept", headers=invitee.headers)
    ).status_code == 410
    assert await membership(world.workspace.id, invitee.id) is None
    clock.set_now(None)
    revoke = await client.delete(
        ws_url(world.workspace.id, f"/email-invites/{invite_id}"), headers=world.admin.headers
    )
    assert revoke.status_code == 200
    assert (await client.get(f"{API}/email-invites/{token}")).status_code == 404
    assert (
        await client.post(f"{API}/email-invites/{token}/accept", headers=invitee.headers)
    ).status_code == 404
    assert (await client.get(f"{API}/email-invites/unknown-token")).status_code == 404


async def test_email_invite_for_someone_who_joined_meanwhile(client, world, outbox):
    email = f"{unique('meanwhile')}@example.com"
    _, token = await send_email_invite(client, world, outbox, email, role="ADMIN")
    invitee = await create_user(email_address=email, verified=False)
    await add_member(world.workspace, invitee, "MEMBER")
    response = await client.post(f"{API}/email-invites/{token}/accept", headers=invitee.headers)
    assert response.json() == {"workspaceId": world.workspace.id, "role": "MEMBER"}
    assert await is_verified(invitee.id)


async def test_external_email_invite_uses_no_seat(client, monkeypatch, outbox):
    monkeypatch.setattr(settings, "billing", "local")
    world = await make_world(plan="team")
    await add_member(world.workspace, await create_user(), "MEMBER")  # 5 of 5 seats
    internal_email, external_email = f"{unique('i')}@example.com", f"{unique('e')}@example.com"
    _, internal_token = await send_email_invite(client, world, outbox, internal_email)
    _, external_token = await send_email_invite(
        client, world, outbox, external_email, kind="CLIENT", projectIds=[world.project.id]
    )
    internal = await create_user(email_address=internal_email, verified=False)
    full = await client.post(
        f"{API}/email-invites/{internal_token}/accept", headers=internal.headers
    )
    assert full.status_code == 402 and full.json()["code"] == "SEAT_LIMIT_REACHED"
    assert not await is_verified(internal.id)
    external = await create_user(email_address=external_email)
    assert (
        await client.post(f"{API}/email-invites/{external_token}/accept", headers=external.headers)
    ).status_code == 200
