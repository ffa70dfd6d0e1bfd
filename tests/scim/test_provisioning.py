"""Provisioning as Entra ID and Okta send it, and every refusal in SCIM's error schema."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
from sqlalchemy import func, select

from plumbline.db import database
from plumbline.kit import crypto
from plumbline.kit.ids import new_id
from plumbline.models import AuditLog, AuthSession, Membership, ScimToken, User
from tests.factories import make_world
from tests.scim.conftest import SCIM_JSON, ScimWorld, new_token, session_for, user_body

PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"


def email() -> str:
    return f"p{new_id()[-12:]}@provisioned.example.com"


async def provision(client: httpx.AsyncClient, scim: ScimWorld, address: str) -> dict[str, Any]:
    answer = await client.post(
        f"{scim.base}/Users", content=_json(user_body(address)), headers=scim.headers
    )
    assert answer.status_code == 201, answer.text
    assert answer.headers["content-type"] == SCIM_JSON
    assert answer.headers["location"] == answer.json()["meta"]["location"]
    return dict(answer.json())


def _json(body: Any) -> bytes:
    return orjson.dumps(body)


async def account(address: str) -> User:
    async with database.sessionmaker() as db:
        found = await db.execute(select(User).where(User.email == address))
        return found.scalar_one()


async def membership(workspace_id: str, user_id: str) -> Membership | None:
    async with database.sessionmaker() as db:
        found = await db.execute(
            select(Membership).where(
                Membership.workspace_id == workspace_id, Membership.user_id == user_id
            )
        )
        return found.scalar_one_or_none()


async def sessions(user_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).select_from(AuthSession).where(AuthSession.user_id == user_id)
        return int((await db.execute(query)).scalar_one())


async def audit_count(workspace_id: str) -> int:
    async with database.sessionmaker() as db:
        query = (
            select(func.count()).select_from(AuditLog).where(AuditLog.workspace_id == workspace_id)
        )
        return int((await db.execute(query)).scalar_one())


def is_scim_error(answer: httpx.Response, status: int, scim_type: str | None = None) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == SCIM_JSON
    body = answer.json()
    assert body["schemas"] == [ERROR]
    assert body["status"] == str(status)
    assert body.get("scimType") == scim_type


async def test_provisioning_creates_the_account_and_joins_it(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    address = email()
    created = await provision(client, scim_world, address)
    assert created["userName"] == address
    assert created["active"] is True
    user = await account(address)
    assert user.email_verified and user.password_hash is None
    assert user.name == "Pat Provisioned"
    joined = await membership(scim_world.world.workspace.id, user.id)
    assert joined is not None and joined.role == "MEMBER"
    read = await client.get(f"{scim_world.base}/Users/{created['id']}", headers=scim_world.headers)
    assert read.status_code == 200
    assert read.json()["emails"] == [{"value": address, "type": "work", "primary": True}]
    async with database.sessionmaker() as db:
        actions = (
            await db.execute(
                select(AuditLog.action, AuditLog.actor)
                .where(AuditLog.workspace_id == scim_world.world.workspace.id)
                .where(
                    AuditLog.action.in_(["user.created", "scim.user_created", "member.provisioned"])
                )
            )
        ).all()
        assert sorted(actions) == [
            ("member.provisioned", "scim"),
            ("scim.user_created", "scim"),
            ("user.created", "scim"),
        ]


async def test_entra_deactivation_ends_access_within_the_request(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    address = email()
    created = await provision(client, scim_world, address)
    user = await account(address)
    browser = await session_for(user.id)
    workspace = f"/api/v1/workspaces/{scim_world.world.workspace.id}"
    assert (await client.get(workspace, headers=browser)).status_code == 200

    entra: dict[str, Any] = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "Replace", "path": "active", "value": "False"}],
    }
    answer = await client.patch(
        f"{scim_world.base}/Users/{created['id']}", content=_json(entra), headers=scim_world.headers
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["active"] is False
    # The same request ended them: nothing waits for a job or an expiry.
    assert await sessions(user.id) == 0
    assert await membership(scim_world.world.workspace.id, user.id) is None
    assert (await client.get(workspace, headers=browser)).status_code == 401

    # Reactivated (Entra sends "True"): a member again, with a new sign-in.
    entra["Operations"][0]["value"] = "True"
    answer = await client.patch(
        f"{scim_world.base}/Users/{created['id']}", content=_json(entra), headers=scim_world.headers
    )
    assert answer.status_code == 200
    assert await membership(scim_world.world.workspace.id, user.id) is not None


async def test_okta_deactivation_and_replace(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    address = email()
    created = await provision(client, scim_world, address)
    user = await account(address)
    await session_for(user.id)
    okta = {"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": False}}]}
    answer = await client.patch(
        f"{scim_world.base}/Users/{created['id']}", content=_json(okta), headers=scim_world.headers
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["active"] is False
    assert await sessions(user.id) == 0
    assert await membership(scim_world.world.workspace.id, user.id) is None

    # Okta's PUT of the whole User, active again, with a new name.
    body = user_body(address, active=True, name={"givenName": "Pat", "familyName": "Renamed"})
    answer = await client.put(
        f"{scim_world.base}/Users/{created['id']}", content=_json(body), headers=scim_world.headers
    )
    assert answer.status_code == 200, answer.text
    assert (await account(address)).name == "Pat Renamed"
    assert await membership(scim_world.world.workspace.id, user.id) is not None


async def test_delete_removes_access_and_keeps_the_account(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    address = email()
    created = await provision(client, scim_world, address)
    user = await account(address)
    await session_for(user.id)
    url = f"{scim_world.base}/Users/{created['id']}"
    assert (await client.delete(url, headers=scim_world.headers)).status_code == 204
    assert await membership(scim_world.world.workspace.id, user.id) is None
    assert await sessions(user.id) == 0
    assert (await account(address)).id == user.id
    is_scim_error(await client.get(url, headers=scim_world.headers), 404)


async def test_filters_and_pages(client: httpx.AsyncClient, scim_world: ScimWorld) -> None:
    addresses = [email() for _ in range(3)]
    for address in addresses:
        await provision(client, scim_world, address)

    async def users(**params: str) -> dict[str, Any]:
        answer = await client.get(
            f"{scim_world.base}/Users", params=params, headers=scim_world.headers
        )
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    by_name = await users(filter=f'userName eq "{addresses[1]}"')
    assert [u["userName"] for u in by_name["Resources"]] == [addresses[1]]
    by_mail = await users(filter=f'emails[type eq "work"].value eq "{addresses[2]}"')
    assert [u["userName"] for u in by_mail["Resources"]] == [addresses[2]]
    by_external = await users(filter=f'externalId eq "ext-{addresses[0]}"')
    assert [u["userName"] for u in by_external["Resources"]] == [addresses[0]]
    assert (await users(filter='userName eq "nobody@example.com"'))["totalResults"] == 0

    first = await users(startIndex="1", count="2")
    second = await users(startIndex="3", count="2")
    assert first["totalResults"] == 3 and first["itemsPerPage"] == 2
    assert second["startIndex"] == 3 and second["itemsPerPage"] == 1
    seen = [u["id"] for u in first["Resources"] + second["Resources"]]
    assert len(set(seen)) == 3
    only = await users(attributes="userName", count="1")
    assert set(only["Resources"][0]) == {"schemas", "id", "userName"}


async def test_groups_give_roles(client: httpx.AsyncClient, scim_world: ScimWorld) -> None:
    address = email()
    created = await provision(client, scim_world, address)
    user = await account(address)
    group = await client.post(
        f"{scim_world.base}/Groups",
        content=_json(
            {
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
                "displayName": "ADMIN",
                "members": [],
            }
        ),
        headers=scim_world.headers,
    )
    assert group.status_code == 201, group.text
    url = f"{scim_world.base}/Groups/{group.json()['id']}"
    add = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "Add", "path": "members", "value": [{"value": created["id"]}]}],
    }
    answer = await client.patch(url, content=_json(add), headers=scim_world.headers)
    assert answer.status_code == 200, answer.text
    joined = await membership(scim_world.world.workspace.id, user.id)
    assert joined is not None and joined.role == "ADMIN"
    remove = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "Remove", "path": f'members[value eq "{created["id"]}"]'}],
    }
    answer = await client.patch(url, content=_json(remove), headers=scim_world.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json().get("members", []) == []
    joined = await membership(scim_world.world.workspace.id, user.id)
    assert joined is not None and joined.role == "MEMBER"


# ---- refusals: the right status, SCIM's error schema, nothing written


async def test_a_revoked_token_is_refused(client: httpx.AsyncClient, scim_world: ScimWorld) -> None:
    world = scim_world.world
    answer = await client.delete(
        f"/api/v1/workspaces/{world.workspace.id}/scim-tokens/{scim_world.token_id}",
        headers=world.admin.headers,
    )
    assert answer.status_code == 200, answer.text
    before = await audit_count(world.workspace.id)
    address = email()
    answer = await client.post(
        f"{scim_world.base}/Users", content=_json(user_body(address)), headers=scim_world.headers
    )
    is_scim_error(answer, 401)
    assert answer.headers["www-authenticate"].startswith("Bearer")
    async with database.sessionmaker() as db:
        assert (await db.execute(select(User).where(User.email == address))).first() is None
    assert await audit_count(world.workspace.id) == before
    is_scim_error(await client.get(f"{scim_world.base}/Users", headers=scim_world.headers), 401)
    no_token = {"Content-Type": SCIM_JSON}
    is_scim_error(await client.get(f"{scim_world.base}/Users", headers=no_token), 401)


async def test_another_workspaces_token_is_refused(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    other = await make_world()
    token, _ = await new_token(client, other)
    headers = {"Authorization": f"Bearer {token}"}
    is_scim_error(await client.get(f"{scim_world.base}/Users", headers=headers), 401)


async def test_a_malformed_filter_is_refused(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    before = await audit_count(scim_world.world.workspace.id)
    for text in ("userName eq", 'userName zz "x"', '(userName eq "x"'):
        answer = await client.get(
            f"{scim_world.base}/Users", params={"filter": text}, headers=scim_world.headers
        )
        is_scim_error(answer, 400, "invalidFilter")
    assert await audit_count(scim_world.world.workspace.id) == before


async def test_a_patch_path_that_does_not_exist_is_refused(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    address = email()
    created = await provision(client, scim_world, address)
    url = f"{scim_world.base}/Users/{created['id']}"
    before = await audit_count(scim_world.world.workspace.id)
    bad = {
        "schemas": [PATCH_OP],
        "Operations": [
            {"op": "replace", "path": "active", "value": False},
            {"op": "replace", "path": "noSuchAttribute", "value": "x"},
        ],
    }
    answer = await client.patch(url, content=_json(bad), headers=scim_world.headers)
    is_scim_error(answer, 400, "invalidPath")
    # Atomic: the first operation is not applied either.
    assert (await client.get(url, headers=scim_world.headers)).json()["active"] is True
    assert await audit_count(scim_world.world.workspace.id) == before
    user = await account(address)
    assert await membership(scim_world.world.workspace.id, user.id) is not None

    remove = {"schemas": [PATCH_OP], "Operations": [{"op": "remove"}]}
    is_scim_error(
        await client.patch(url, content=_json(remove), headers=scim_world.headers), 400, "noTarget"
    )
    is_scim_error(
        await client.patch(url, content=b"{not json", headers=scim_world.headers),
        400,
        "invalidSyntax",
    )


async def test_a_taken_user_name_and_a_foreign_account_are_refused(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    address = email()
    await provision(client, scim_world, address)
    again = await client.post(
        f"{scim_world.base}/Users", content=_json(user_body(address)), headers=scim_world.headers
    )
    is_scim_error(again, 409, "uniqueness")
    # Someone's existing account outside the workspace's verified domains is never pulled in.
    outsider = scim_world.world.member.user.email
    answer = await client.post(
        f"{scim_world.base}/Users",
        content=_json(user_body(outsider, userName="outsider")),
        headers=scim_world.headers,
    )
    is_scim_error(answer, 409, "uniqueness")


async def test_unknown_paths_and_resources(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    is_scim_error(await client.get(f"{scim_world.base}/Nope", headers=scim_world.headers), 404)
    is_scim_error(
        await client.get(f"{scim_world.base}/Users/{new_id()}", headers=scim_world.headers), 404
    )
    is_scim_error(
        await client.post(f"{scim_world.base}/ServiceProviderConfig", headers=scim_world.headers),
        405,
    )
    other = await make_world()
    token, _ = await new_token(client, other)
    created = await provision(client, scim_world, email())
    foreign = {"Authorization": f"Bearer {token}"}
    is_scim_error(
        await client.get(f"/scim/v2/{other.workspace.id}/Users/{created['id']}", headers=foreign),
        404,
    )


async def test_tokens_are_shown_once_stored_hashed_and_for_admins(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    world = scim_world.world
    url = f"/api/v1/workspaces/{world.workspace.id}/scim-tokens"
    async with database.sessionmaker() as db:
        stored = await db.get(ScimToken, scim_world.token_id)
        assert stored is not None
        assert stored.token_hash == crypto.sha256_hex(scim_world.token) != scim_world.token
    assert (await client.post(url, json={}, headers=world.member.headers)).status_code == 403
    assert (await client.post(url, json={}, headers=world.manager.headers)).status_code == 403
    other = await make_world()
    assert (await client.post(url, json={}, headers=other.owner.headers)).status_code == 404
    assert (
        await client.delete(f"{url}/{new_id()}", headers=world.admin.headers)
    ).status_code == 404
