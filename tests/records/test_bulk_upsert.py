"""Bulk upsert by external id (issue 27, item 6), the same for issues, assets and materials:
created, then unchanged (nothing written), then updated; a bad record among good ones; the
all-or-nothing refusal; the 1,000-record bound; the key's scope (project or workspace); two
bulks racing on one key; one query loads the existing records."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.models import Asset, AuditLog, EventLog, Issue, Material
from tests.factories import (
    QueryCounter,
    World,
    audit_entries,
    create_project,
    om_world,
    set_project,
)


@dataclass(frozen=True)
class Kind:
    name: str  # the audit entries' entity type
    model: Any
    path: str  # under /api/v1, with {p} or {w}
    record: Callable[[str], dict[str, Any]]  # a create body with its key
    change: dict[str, Any]  # a field a later run changes
    bad: dict[str, Any]  # a record its service refuses (400 naming ``field``)
    field: str

    def url(self, world: World, project_id: str | None = None) -> str:
        project = project_id or world.project.id
        return "/api/v1" + self.path.format(p=project, w=world.workspace.id)

    def scope(self, world: World) -> Any:
        """The rows of this world's project (or workspace, for materials)."""
        if self.model is Material:
            return Material.workspace_id == world.workspace.id
        return self.model.project_id == world.project.id


ISSUES = Kind(
    "issue",
    Issue,
    "/projects/{p}/issues",
    lambda key: {"externalId": key, "title": f"Leak {key}"},
    {"priority": "HIGH"},
    {"title": "Leak", "assigneeId": "0" * 32},
    "assigneeId",
)
ASSETS = Kind(
    "asset",
    Asset,
    "/projects/{p}/om/assets",
    lambda key: {"externalId": key, "tag": f"T-{key}", "name": "Pump"},
    {"location": "Roof"},
    {"tag": "T-BAD", "name": "Pump", "parentAssetId": "0" * 32},
    "parentAssetId",
)
MATERIALS = Kind(
    "material",
    Material,
    "/workspaces/{w}/materials",
    lambda key: {"externalId": key, "name": f"Cable {key}", "unit": "m"},
    {"unitPrice": "2.50"},
    {"name": "Cable", "unit": "m", "unitPrice": "-1"},
    "unitPrice",
)
KINDS = [ISSUES, ASSETS, MATERIALS]
IDS = [kind.name for kind in KINDS]


@pytest.fixture
async def ops() -> World:
    """A world whose project runs O&M (assets need it)."""
    return await om_world()


def keys(count: int) -> list[str]:
    prefix = new_id()[-8:]
    return [f"ERP-{prefix}-{i}" for i in range(count)]


async def bulk(
    client: httpx.AsyncClient,
    kind: Kind,
    world: World,
    records: list[Any],
    *,
    project_id: str | None = None,
    **options: Any,
) -> httpx.Response:
    return await client.post(
        f"{kind.url(world, project_id)}/bulk",
        json={"records": records, **options},
        headers=world.manager.headers,
    )


async def read(client: httpx.AsyncClient, kind: Kind, world: World, key: str) -> dict[str, Any]:
    """The one record with this key, through the list's ``externalId`` filter."""
    response = await client.get(
        kind.url(world), params={"externalId": key}, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    [found] = response.json()
    assert found["externalId"] == key
    return dict(found)


async def count(kind: Kind, world: World, external_ids: list[str]) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(
            kind.scope(world), kind.model.external_id.in_(external_ids)
        )
        return int((await db.execute(query)).scalar_one())


async def events_of(ids: list[str]) -> list[tuple[str, str]]:
    """(type, resource id) of the events written about these records, in order."""
    async with database.sessionmaker() as db:
        query = (
            select(EventLog.type, EventLog.resource_id)
            .where(EventLog.resource_id.in_(ids))
            .order_by(EventLog.seq)
        )
        return [(kind, resource) for kind, resource in (await db.execute(query)).tuples()]


async def audit_rows(world: World) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(AuditLog.workspace_id == world.workspace.id)
        return int((await db.execute(query)).scalar_one())


def statuses(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [result["status"] for result in response.json()["results"]]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_created_then_unchanged_then_updated(
    client: httpx.AsyncClient, ops: World, kind: Kind
) -> None:
    three = keys(3)
    records = [kind.record(key) for key in three]
    first = await bulk(client, kind, ops, records)
    assert statuses(first) == ["created"] * 3
    body = first.json()
    assert (body["created"], body["updated"], body["unchanged"], body["failed"]) == (3, 0, 0, 0)
    assert [r["externalId"] for r in body["results"]] == three
    assert [r["index"] for r in body["results"]] == [0, 1, 2]
    stored = {key: await read(client, kind, ops, key) for key in three}
    assert [r["id"] for r in body["results"]] == [stored[key]["id"] for key in three]
    ids = [stored[key]["id"] for key in three]
    for key in three:
        [entry] = await audit_entries(stored[key]["id"])
        assert entry.action == f"{kind.name}.created"
        assert entry.changes["externalId"] == [None, key]
    assert sorted(await events_of(ids)) == sorted((f"{kind.name}.created", i) for i in ids)
    audited = await audit_rows(ops)

    again = await bulk(client, kind, ops, records)
    assert statuses(again) == ["unchanged"] * 3
    assert again.json()["unchanged"] == 3
    assert [r["id"] for r in again.json()["results"]] == [stored[key]["id"] for key in three]
    assert {key: await read(client, kind, ops, key) for key in three} == stored
    assert await audit_rows(ops) == audited

    records[1] |= kind.change
    changed = await bulk(client, kind, ops, records)
    assert statuses(changed) == ["unchanged", "updated", "unchanged"]
    assert changed.json()["updated"] == 1
    after = await read(client, kind, ops, three[1])
    assert after["updatedAt"] > stored[three[1]]["updatedAt"]
    [field] = kind.change
    assert after[field] == kind.change[field]
    _, updated = await audit_entries(after["id"])
    assert updated.action == f"{kind.name}.updated"
    assert list(updated.changes) == [field]
    assert await audit_rows(ops) == audited + 1
    assert (await events_of(ids))[3:] == [(f"{kind.name}.updated", after["id"])]
    assert await read(client, kind, ops, three[0]) == stored[three[0]]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_bad_record_among_good_ones(
    client: httpx.AsyncClient, ops: World, kind: Kind
) -> None:
    """Each bad record gets its single route's error; the good ones are written; nothing of the
    bad ones is."""
    good, refused, broken, twice = keys(4)
    incomplete = {"externalId": broken}  # the create's required fields missing
    records = [
        kind.record(good),
        kind.bad | {"externalId": refused},
        incomplete,
        {"title": "No key", "tag": "T", "name": "No key", "unit": "m"},
        kind.record(twice),
        kind.record(twice),
    ]
    response = await bulk(client, kind, ops, records)
    assert statuses(response) == ["created", "error", "error", "error", "error", "error"]
    body = response.json()
    assert (body["created"], body["failed"]) == (1, 5)
    results = body["results"]
    assert results[1]["error"]["code"] == "VALIDATION_FAILED"
    assert [d["field"] for d in results[1]["error"]["details"]] == [kind.field]
    assert results[2]["externalId"] == broken
    assert results[2]["error"]["code"] == "VALIDATION_FAILED"
    assert results[3]["externalId"] is None
    assert [d["field"] for d in results[3]["error"]["details"]] == ["externalId"]
    for result in results[4:]:
        assert result["error"]["details"][0]["field"] == "externalId"
        assert "more than once" in result["error"]["error"]
    assert all("id" not in result for result in results[1:])
    assert await count(kind, ops, [good]) == 1
    assert await events_of([results[0]["id"]]) == [(f"{kind.name}.created", results[0]["id"])]
    assert await count(kind, ops, [refused, broken, twice]) == 0


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_all_or_nothing_refuses_the_whole_body(
    client: httpx.AsyncClient, ops: World, kind: Kind
) -> None:
    first, bad, last = keys(3)
    existing = await bulk(client, kind, ops, [kind.record(last)])
    assert statuses(existing) == ["created"]
    audited = await audit_rows(ops)
    records = [kind.record(first), kind.bad | {"externalId": bad}, kind.record(last) | kind.change]
    response = await bulk(client, kind, ops, records, allOrNothing=True)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED"
    assert body["error"] == "1 of 3 records were refused; nothing was written"
    assert body["details"][0]["field"] == f"records.1.{kind.field}"
    assert [r["status"] for r in body["results"]] == ["created", "error", "updated"]
    assert "id" not in body["results"][0]  # never written
    assert (body["created"], body["updated"], body["failed"]) == (1, 1, 1)
    assert await count(kind, ops, [first, bad]) == 0
    assert await audit_rows(ops) == audited
    unchanged = await read(client, kind, ops, last)
    [field] = kind.change
    assert unchanged[field] != kind.change[field]
    accepted = await bulk(client, kind, ops, [records[0], records[2]], allOrNothing=True)
    assert statuses(accepted) == ["created", "updated"]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_over_1000_records_is_a_400_writing_nothing(
    client: httpx.AsyncClient, ops: World, kind: Kind
) -> None:
    many = keys(1001)
    response = await bulk(client, kind, ops, [kind.record(key) for key in many])
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert response.json()["details"][0]["field"] == "records"
    assert await count(kind, ops, many) == 0
    empty = await bulk(client, kind, ops, [])
    assert empty.status_code == 400, empty.text
    assert set(empty.json()) >= {"error", "code"}


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_key_of_another_project_or_workspace_is_not_seen(
    client: httpx.AsyncClient, ops: World, kind: Kind
) -> None:
    """The same key in another project (another workspace, for materials) names another
    record: a bulk here creates its own and leaves that one alone."""
    [key] = keys(1)
    other = await om_world() if kind is MATERIALS else ops
    other_project = None
    if kind is not MATERIALS:
        other_project = (await create_project(ops.workspace, name="Annex")).id
        await set_project(other_project, operations_mode=True)
    theirs = await bulk(client, kind, other, [kind.record(key)], project_id=other_project)
    assert statuses(theirs) == ["created"]
    mine = await bulk(client, kind, ops, [kind.record(key) | kind.change])
    assert statuses(mine) == ["created"]
    assert mine.json()["results"][0]["id"] != theirs.json()["results"][0]["id"]
    [entry] = await audit_entries(theirs.json()["results"][0]["id"])
    assert entry.action == f"{kind.name}.created"  # never updated from here


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_concurrent_bulks_of_one_key_make_one_record(
    client: httpx.AsyncClient, ops: World, kind: Kind
) -> None:
    """Both requests load no record with the keys, then both create: the unique index lets one
    through and the other reports a 409 for that record (PostgreSQL); SQLite's writers take
    turns, so the later one finds the record and leaves it unchanged."""
    shared = keys(2)
    records = [kind.record(key) for key in shared]
    answers = await asyncio.gather(*(bulk(client, kind, ops, records) for _ in range(4)))
    assert await count(kind, ops, shared) == 2
    async with database.sessionmaker() as db:  # no event of a refused record (its rollback)
        query = select(EventLog.type).where(EventLog.workspace_id == ops.workspace.id)
        assert sorted((await db.execute(query)).scalars()) == [f"{kind.name}.created"] * 2
    for index in (0, 1):
        outcomes = [answer.json()["results"][index] for answer in answers]
        assert all(answer.status_code == 200 for answer in answers)
        assert [o["status"] for o in outcomes].count("created") == 1
        for outcome in outcomes:
            if outcome["status"] == "error":
                assert outcome["error"]["code"] == "CONFLICT", outcome
            else:
                assert outcome["status"] in ("created", "unchanged")


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_one_query_loads_the_existing_records(
    client: httpx.AsyncClient, ops: World, kind: Kind
) -> None:
    """An unchanged run sends the same statements for 3 records as for 30: one loads them all,
    and an unchanged record writes nothing."""
    few, many = keys(3), keys(30)
    for batch in (few, many):
        assert statuses(await bulk(client, kind, ops, [kind.record(k) for k in batch])) == [
            "created"
        ] * len(batch)
    counted = []
    for batch in (few, many):
        with QueryCounter() as queries:
            again = await bulk(client, kind, ops, [kind.record(k) for k in batch])
        assert statuses(again) == ["unchanged"] * len(batch)
        loads = [s for s in queries.statements if "external_id IN" in s]
        assert len(loads) == 1, loads
        counted.append(queries.count)
    assert counted[0] == counted[1]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_the_single_routes_take_and_guard_the_key(
    client: httpx.AsyncClient, ops: World, kind: Kind
) -> None:
    """Settable on create and PATCH, returned in every read, filterable; unique (409)."""
    mine, other, free = keys(3)
    headers = ops.manager.headers
    created = await client.post(kind.url(ops), json=kind.record(mine), headers=headers)
    assert created.status_code == 200, created.text
    assert created.json()["externalId"] == mine
    record_id = created.json()["id"]
    assert await read(client, kind, ops, mine) == created.json()
    twin = await client.post(kind.url(ops), json=kind.record(mine), headers=headers)
    assert twin.status_code == 409, twin.text
    assert twin.json()["code"] == "CONFLICT"
    second = await client.post(kind.url(ops), json=kind.record(other), headers=headers)
    taken = await client.patch(
        f"{kind.url(ops)}/{second.json()['id']}", json={"externalId": mine}, headers=headers
    )
    assert taken.status_code == 409, taken.text
    moved = await client.patch(
        f"{kind.url(ops)}/{record_id}", json={"externalId": free}, headers=headers
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["externalId"] == free
    assert (await audit_entries(record_id))[-1].changes == {"externalId": [mine, free]}
    cleared = await client.patch(
        f"{kind.url(ops)}/{record_id}", json={"externalId": None}, headers=headers
    )
    assert cleared.json()["externalId"] is None
    listed = await client.get(kind.url(ops), params={"externalId": mine}, headers=headers)
    assert listed.json() == []
    for bad in ("", " ", "x" * 256):
        refused = await client.post(
            kind.url(ops), json=kind.record(mine) | {"externalId": bad}, headers=headers
        )
        assert refused.status_code == 400, refused.text
    reused = await bulk(client, kind, ops, [kind.record(free)])
    assert statuses(reused) == ["created"]  # the key was cleared by the PATCH
