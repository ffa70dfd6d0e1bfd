"""One workspace's provisioning ends the person's access to that workspace only: their
membership, role and sessions of another workspace stay as they were (issue 40 item 2)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson
import pytest

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import SsoDomain
from tests.factories import Actor, add_member, create_user, create_workspace, make_world
from tests.scim.conftest import ScimWorld, new_token, session_for, user_body
from tests.scim.test_provisioning import PATCH_OP, membership, sessions

Step = Callable[[httpx.AsyncClient, ScimWorld, dict[str, Any]], Awaitable[None]]


async def verified_domain(workspace_id: str) -> str:
    """A domain the workspace proved it owns."""
    domain = f"a{new_id()[-10:].lower()}.example.com"
    async with database.sessionmaker() as db:
        now = clock.now()
        db.add(SsoDomain(workspace_id=workspace_id, domain=domain, verified_at=now, created_at=now))
        await db.commit()
    return domain


async def patch_inactive(client: httpx.AsyncClient, scim: ScimWorld, user: dict[str, Any]) -> None:
    body = {"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": False}}]}
    answer = await client.patch(
        f"{scim.base}/Users/{user['id']}", content=orjson.dumps(body), headers=scim.headers
    )
    assert answer.status_code == 200, answer.text


async def put_inactive(client: httpx.AsyncClient, scim: ScimWorld, user: dict[str, Any]) -> None:
    body = user_body(user["userName"], active=False)
    answer = await client.put(
        f"{scim.base}/Users/{user['id']}", content=orjson.dumps(body), headers=scim.headers
    )
    assert answer.status_code == 200, answer.text


async def delete(client: httpx.AsyncClient, scim: ScimWorld, user: dict[str, Any]) -> None:
    answer = await client.delete(f"{scim.base}/Users/{user['id']}", headers=scim.headers)
    assert answer.status_code == 204, answer.text


async def provisioned(client: httpx.AsyncClient, scim: ScimWorld, person: Actor) -> dict[str, Any]:
    answer = await client.post(
        f"{scim.base}/Users",
        content=orjson.dumps(user_body(person.user.email)),
        headers=scim.headers,
    )
    assert answer.status_code == 201, answer.text
    assert await membership(scim.world.workspace.id, person.id) is not None
    return dict(answer.json())


async def owner_elsewhere(domain: str) -> tuple[Actor, str]:
    """The SUPER_ADMIN of another workspace, whose e-mail is in ``domain``."""
    person = await create_user(name="Bo Boss", email_address=f"bo-{new_id()[-8:]}@{domain}")
    workspace = await create_workspace(person, name="Other Builders")
    return person, workspace.id


async def still_theirs(client: httpx.AsyncClient, person: Actor, workspace_id: str) -> None:
    """The person's standing in the other workspace, and the session they use for it."""
    kept = await membership(workspace_id, person.id)
    assert kept is not None and kept.role == "SUPER_ADMIN"
    answer = await client.get(f"/api/v1/workspaces/{workspace_id}", headers=person.headers)
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("step", [patch_inactive, put_inactive, delete])
async def test_deprovisioning_leaves_another_workspace_alone(
    client: httpx.AsyncClient, scim_world: ScimWorld, step: Step
) -> None:
    workspace = scim_world.world.workspace.id
    person, elsewhere = await owner_elsewhere(await verified_domain(workspace))
    user = await provisioned(client, scim_world, person)
    here = await client.get(f"/api/v1/workspaces/{workspace}", headers=person.headers)
    assert here.status_code == 200, here.text

    await step(client, scim_world, user)

    # Out of this workspace at once ...
    assert await membership(workspace, person.id) is None
    here = await client.get(f"/api/v1/workspaces/{workspace}", headers=person.headers)
    assert here.status_code == 404, here.text
    # ... and nothing else: their role and their sessions of the other workspace stay.
    assert await sessions(person.id) == 1
    await still_theirs(client, person, elsewhere)


async def test_a_person_of_this_workspace_only_is_signed_out(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    """A member of the other workspace once, gone from it since: nothing left but this one."""
    workspace = scim_world.world.workspace.id
    domain = await verified_domain(workspace)
    person = await create_user(email_address=f"solo-{new_id()[-8:]}@{domain}")
    user = await provisioned(client, scim_world, person)
    browser = await session_for(person.id)
    await patch_inactive(client, scim_world, user)
    assert await sessions(person.id) == 0
    answer = await client.get(f"/api/v1/workspaces/{workspace}", headers=browser)
    assert answer.status_code == 401


async def test_role_groups_leave_another_workspace_alone(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    workspace = scim_world.world.workspace.id
    person, elsewhere = await owner_elsewhere(await verified_domain(workspace))
    user = await provisioned(client, scim_world, person)
    group = await client.post(
        f"{scim_world.base}/Groups",
        content=orjson.dumps(
            {
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
                "displayName": "ADMIN",
                "members": [{"value": user["id"]}],
            }
        ),
        headers=scim_world.headers,
    )
    assert group.status_code == 201, group.text
    here = await membership(workspace, person.id)
    assert here is not None and here.role == "ADMIN"
    url = f"{scim_world.base}/Groups/{group.json()['id']}"
    remove = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "Remove", "path": f'members[value eq "{user["id"]}"]'}],
    }
    answer = await client.patch(url, content=orjson.dumps(remove), headers=scim_world.headers)
    assert answer.status_code == 200, answer.text
    here = await membership(workspace, person.id)
    assert here is not None and here.role == "MEMBER"
    await still_theirs(client, person, elsewhere)

    # The group gone: the same.
    answer = await client.delete(url, headers=scim_world.headers)
    assert answer.status_code == 204, answer.text
    assert await sessions(person.id) == 1
    await still_theirs(client, person, elsewhere)


async def test_another_workspaces_member_of_both_keeps_the_other(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    """An ordinary member elsewhere (not its owner) keeps that membership and their sessions."""
    workspace = scim_world.world.workspace.id
    domain = await verified_domain(workspace)
    other = await make_world()
    await new_token(client, other)  # the other workspace provisions too; it is not asked here
    person = await create_user(email_address=f"both-{new_id()[-8:]}@{domain}")
    await add_member(other.workspace, person, "MANAGER")
    user = await provisioned(client, scim_world, person)
    await delete(client, scim_world, user)
    assert await membership(workspace, person.id) is None
    kept = await membership(other.workspace.id, person.id)
    assert kept is not None and kept.role == "MANAGER"
    assert await sessions(person.id) == 1
    answer = await client.get(f"/api/v1/workspaces/{other.workspace.id}", headers=person.headers)
    assert answer.status_code == 200, answer.text
