"""The providers' lookups: ``userName eq "..."`` (and ``externalId eq``, ``id eq``) read only
the Users they can match, through ``scim_users.user_name_key`` (and the external id's index),
and compare as SCIM does (case and Unicode normalization aside for userName, case-exact for
externalId) on either database; an unfiltered list reads one page."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import httpx
import orjson
from alembic import command
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.migrate import alembic_config
from plumbline.scim.documents import user_name_key
from plumbline.scim.service import scim
from tests.factories import QueryCounter
from tests.scim.conftest import ScimWorld, user_body
from tests.scim.test_provisioning import account, email, is_scim_error, membership, provision


def zoe() -> str:
    """A userName written composed (NFC); the lookups send it decomposed and in other cases."""
    return f"Zo\u00eb.\u00d6kel.{new_id()[-8:]}@provisioned.example.com"


async def users(client: httpx.AsyncClient, scim: ScimWorld, **params: str) -> dict[str, Any]:
    answer = await client.get(f"{scim.base}/Users", params=params, headers=scim.headers)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def names(found: dict[str, Any]) -> list[str]:
    return [user["userName"] for user in found["Resources"]]


def reads_of_users(statements: list[str]) -> list[str]:
    return [s for s in statements if "FROM scim_users" in s]


async def test_user_name_eq_reads_only_that_user(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    others, written = [email() for _ in range(3)], zoe()
    for address in [*others, written]:
        await provision(client, scim_world, address)

    looked_up = unicodedata.normalize("NFD", written).upper()
    assert looked_up != written and looked_up.lower() != written.lower()
    with QueryCounter() as counter:
        found = await users(client, scim_world, filter=f'userName eq "{looked_up}"')
    assert names(found) == [written] and found["totalResults"] == 1
    [read] = reads_of_users(counter.statements)
    assert "scim_users.user_name_key =" in read

    # The same through POST /Users/.search, and the attribute named with its schema.
    with QueryCounter() as counter:
        answer = await client.post(
            f"{scim_world.base}/Users/.search",
            content=orjson.dumps(
                {
                    "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
                    "filter": "urn:ietf:params:scim:schemas:core:2.0:User:USERNAME eq "
                    f'"{written.lower()}"',
                }
            ),
            headers=scim_world.headers,
        )
    assert answer.status_code == 200, answer.text
    assert names(answer.json()) == [written]
    [read] = reads_of_users(counter.statements)
    assert "scim_users.user_name_key =" in read


async def test_external_id_eq_reads_only_that_user_and_is_case_exact(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    others, written = [email() for _ in range(3)], email()
    for address in [*others, written]:
        await provision(client, scim_world, address)

    with QueryCounter() as counter:
        found = await users(client, scim_world, filter=f'externalId eq "ext-{written}"')
    assert names(found) == [written] and found["totalResults"] == 1
    [read] = reads_of_users(counter.statements)
    assert "scim_users.external_id =" in read

    shouted = await users(client, scim_world, filter=f'externalId eq "EXT-{written.upper()}"')
    assert shouted["totalResults"] == 0 and shouted.get("Resources", []) == []
    both = await users(
        client,
        scim_world,
        filter=f'externalId eq "ext-{written}" or externalId eq "ext-{others[0]}"',
    )
    assert sorted(names(both)) == sorted([written, others[0]])


async def test_what_the_index_leaves_is_still_matched_by_the_filter(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    first, second, third = [email() for _ in range(3)]
    made = {a: await provision(client, scim_world, a) for a in (first, second, third)}

    either = await users(
        client, scim_world, filter=f'userName eq "{first}" or id eq "{made[second]["id"]}"'
    )
    assert sorted(names(either)) == sorted([first, second])
    # `and` narrows by its indexed term; the rest is the library's to decide.
    both = await users(client, scim_world, filter=f'userName eq "{first}" and active eq true')
    assert names(both) == [first]
    none = await users(client, scim_world, filter=f'userName eq "{first}" and active eq false')
    assert none["totalResults"] == 0 and none["Resources"] == []
    # An `or` with a term the index cannot answer reads every User, and matches them all.
    mixed = await users(
        client, scim_world, filter=f'userName eq "{first}" or externalId eq "ext-{third}"'
    )
    assert sorted(names(mixed)) == sorted([first, third])
    # A prefix is no equality: read whole, matched by the library.
    prefix = await users(client, scim_world, filter=f'userName sw "{second[:8]}"')
    assert names(prefix) == [second]
    # A malformed filter is refused as before, whatever the narrowing made of it.
    refused = await client.get(
        f"{scim_world.base}/Users",
        params={"filter": 'userName eq "x" and'},
        headers=scim_world.headers,
    )
    is_scim_error(refused, 400, "invalidFilter")


async def test_an_unfiltered_list_reads_one_page(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    for _ in range(5):
        await provision(client, scim_world, email())
    with QueryCounter() as counter:
        page = await users(client, scim_world, startIndex="2", count="2")
    assert (page["totalResults"], page["startIndex"], page["itemsPerPage"]) == (5, 2, 2)
    read = [s for s in reads_of_users(counter.statements) if "count(" not in s.lower()]
    assert len(read) == 1 and "LIMIT" in read[0].upper() and "OFFSET" in read[0].upper()
    every = await users(client, scim_world)
    assert [u["id"] for u in every["Resources"]][1:3] == [u["id"] for u in page["Resources"]]
    empty = await users(client, scim_world, count="0")
    assert (empty["totalResults"], empty["itemsPerPage"], empty["Resources"]) == (5, 0, [])


async def test_user_names_that_compare_equal_are_one_user_name(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    written = zoe()
    await provision(client, scim_world, written)
    twin = unicodedata.normalize("NFD", written).lower()
    answer = await client.post(
        f"{scim_world.base}/Users",
        content=orjson.dumps(user_body(email(), userName=twin)),
        headers=scim_world.headers,
    )
    is_scim_error(answer, 409, "uniqueness")


def test_the_key_is_the_librarys_comparison_and_the_migrations() -> None:
    written = zoe()
    for name in (
        written,
        unicodedata.normalize("NFD", written),
        "BJensen",
        "\u212a",
        "I\u0307",
        "straße",
    ):
        assert user_name_key(name) == unicodedata.normalize("NFC", name).lower(), name


async def test_the_migration_fills_in_the_keys(tmp_path: Path) -> None:
    """SQLite (a file of its own, whichever database the suite uses): the Users provisioned
    before the key get it."""
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path}/keys.db")
    user = text(
        "INSERT INTO scim_users (id, workspace_id, user_name, active, attributes, created_at, "
        "updated_at) VALUES (:id, 'w', :name, 1, '{}', '2026-01-01 00:00:00', "
        "'2026-01-01 00:00:00')"
    )
    written = zoe()
    stored = {"a": written, "b": unicodedata.normalize("NFD", written).upper(), "c": "BJensen"}
    try:
        async with engine.begin() as conn:
            await conn.run_sync(
                lambda s: command.upgrade(alembic_config(s), "0025_work_order_costs")
            )
            for id_, name in stored.items():
                await conn.execute(user, {"id": id_, "name": name})
            await conn.run_sync(lambda s: command.upgrade(alembic_config(s), "heads"))
            rows = await conn.execute(text("SELECT id, user_name_key FROM scim_users ORDER BY id"))
            found = dict(rows.all())
    finally:
        await engine.dispose()
    assert found == {id_: user_name_key(name) for id_, name in stored.items()}
    assert found["a"] == found["b"]


async def test_a_group_may_name_more_people_than_a_statement_takes_parameters(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    made = [(await provision(client, scim_world, email()))["id"] for _ in range(3)]
    named = {*made, *(f"nobody-{n}" for n in range(2500))}
    async with database.sessionmaker() as db:
        with QueryCounter() as counter:
            found = await scim._user_ids(db, scim_world.world.workspace.id, named)
    assert found == set(made)
    assert len(reads_of_users(counter.statements)) == 3  # 2,503 ids, a thousand at a time


async def _role_group_statements(
    client: httpx.AsyncClient, scim: ScimWorld, size: int, name: str
) -> list[str]:
    """The statements of creating the role group ``name`` of ``size`` new Users, after
    checking each of them got the role."""
    addresses = [email() for _ in range(size)]
    ids = [(await provision(client, scim, address))["id"] for address in addresses]
    body = {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
        "displayName": name,
        "members": [{"value": id_} for id_ in ids],
    }
    with QueryCounter() as counter:
        answer = await client.post(
            f"{scim.base}/Groups", content=orjson.dumps(body), headers=scim.headers
        )
    assert answer.status_code == 201, answer.text
    for address in addresses:
        joined = await membership(scim.world.workspace.id, (await account(address)).id)
        assert joined is not None and joined.role == name
    return counter.statements


async def test_a_role_group_reads_its_members_and_the_groups_once_whatever_its_size(
    client: httpx.AsyncClient, scim_world: ScimWorld
) -> None:
    def reads(statements: list[str], table: str) -> int:
        return sum(1 for s in statements if s.lstrip().startswith("SELECT") and table in s)

    small = await _role_group_statements(client, scim_world, 2, "MANAGER")
    large = await _role_group_statements(client, scim_world, 7, "ADMIN")
    for table in ("FROM scim_groups", "JOIN memberships", "FROM memberships"):
        assert reads(small, table) == reads(large, table), table
    assert reads(large, "JOIN memberships") == 1
