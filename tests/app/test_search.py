"""Every list's ``q`` (kit/search.py): the same rows on SQLite (FTS5) and PostgreSQL (trigram
indexes) for the same data, literal special characters, and on PostgreSQL a plan that uses the
trigram index, custom and generic."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from sqlalchemy import event, select, text
from sqlalchemy.ext.asyncio import create_async_engine

from plumbline.db import database
from plumbline.kit import clock, search
from plumbline.kit.ids import new_id
from plumbline.migrate import alembic_config
from plumbline.models import Issue
from tests.factories import World, make_world, om_url, om_world
from tests.viewer.helpers import create_file_version

VALID = "2039-12-31T17:00:00Z"

# Three records, the same for every list: the first text in the list's main searched column
# (title, name), the second in another one (description, question, notes, supplier...).
RECORDS = {
    "A": ("Büro Nord", "Façade cleaning on level two"),
    "B": ("BÜRO SÜD 50% off_cut", 'Quote "A\\B" it\'s'),
    "C": ("Pipe leak", "Kitchen"),
}
# q -> the records it finds, written by hand: the same on both databases.
CASES = [
    ("üro", "AB"),  # mid-word, non-ASCII, either case stored
    ("BÜRO", "AB"),  # case differs from the stored text
    ("büro n", "A"),  # with a space
    ("FAÇADE", "A"),  # in the second column, non-ASCII upper case
    ("ÇAD", "A"),
    ("acade", ""),  # ç is not c: no accent folding
    ("KITCHEN", "C"),
    ("Pipe leak", "C"),
    ("ü", "AB"),  # one character (no trigram): still case-insensitive beyond ASCII
    ("çA", "A"),  # two characters
    ("le", "AC"),
    ("%", "B"),  # LIKE's wildcards are literal
    ("_", "B"),
    ("50%", "B"),
    ("ro_n", ""),  # "_" a wildcard would find "Büro Nord"
    ("0%o", ""),  # "%" a wildcard would find "50% off_cut"
    ("f_c", "B"),
    ("\\", "B"),  # the escape character itself
    ('"A\\B"', "B"),  # FTS5's quote, doubled inside the phrase
    ("it's", "B"),
    ('A" OR "x', ""),  # no FTS5 syntax: one phrase
    ("leak*", ""),  # no FTS5 prefix query
    ("{title} : leak", ""),  # no FTS5 column filter
    ("zzz", ""),
]


@dataclass(frozen=True)
class Resource:
    path: str  # the list, under /api/v1
    make: Callable[[httpx.AsyncClient, World, str, str, str], Awaitable[str]]
    om: bool = False  # the project in operations mode (assets)


async def _post(client: httpx.AsyncClient, world: World, path: str, body: dict[str, Any]) -> str:
    response = await client.post(f"/api/v1{path}", json=body, headers=world.manager.headers)
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


def _body(path: str, first: str, second: str, **extra: Any) -> Any:
    async def make(client: httpx.AsyncClient, world: World, one: str, two: str, _: str) -> str:
        url = path.format(p=world.project.id, w=world.workspace.id)
        return await _post(client, world, url, {first: one, second: two, **extra})

    return make


async def _asset(client: httpx.AsyncClient, world: World, one: str, two: str, key: str) -> str:
    body = {"tag": f"TAG-{key}", "name": one, "manufacturer": two}
    return await _post(
        client, world, om_url(world.project, "/assets").removeprefix("/api/v1"), body
    )


async def _file(client: httpx.AsyncClient, world: World, one: str, two: str, _: str) -> str:
    # A name has no backslash through the API: the factory writes the row (and its triggers run).
    return (await create_file_version(world.project, name=f"{one} ~ {two}")).file_id


RESOURCES = {
    "issues": Resource(
        "/projects/{p}/issues", _body("/projects/{p}/issues", "title", "description")
    ),
    "rfi": Resource("/projects/{p}/rfi", _body("/projects/{p}/rfi", "title", "question")),
    "punch": Resource("/projects/{p}/punch", _body("/projects/{p}/punch", "title", "notes")),
    "field-reports": Resource(
        "/projects/{p}/field-reports", _body("/projects/{p}/field-reports", "title", "notes")
    ),
    "proposals": Resource(
        "/projects/{p}/proposals",
        _body("/projects/{p}/proposals", "title", "clientCompany", validUntil=VALID),
    ),
    "assets": Resource("/projects/{p}/om/assets", _asset, om=True),
    "materials": Resource(
        "/workspaces/{w}/materials",
        _body("/workspaces/{w}/materials", "name", "supplier", unit="m"),
    ),
    "files": Resource("/projects/{p}/files", _file),
}


async def _found(
    client: httpx.AsyncClient, world: World, path: str, q: str, limit: int = 100
) -> list[str]:
    url = "/api/v1" + path.format(p=world.project.id, w=world.workspace.id)
    params = {"q": q, "limit": str(limit)}
    response = await client.get(url, params=params, headers=world.manager.headers)
    assert response.status_code == 200, response.text
    return [row["id"] for row in response.json()]


@pytest.mark.parametrize("name", RESOURCES)
async def test_the_same_rows_on_both_databases(client: httpx.AsyncClient, name: str) -> None:
    resource = RESOURCES[name]
    world = await (om_world() if resource.om else make_world())
    ids = {
        key: await resource.make(client, world, one, two, key)
        for key, (one, two) in RECORDS.items()
    }
    names = {id_: key for key, id_ in ids.items()}
    for q, expected in CASES:
        found = await _found(client, world, resource.path, q)
        assert "".join(sorted(names[i] for i in found)) == expected, (name, q)


async def test_an_edit_moves_the_record_in_the_search(
    client: httpx.AsyncClient, world: World
) -> None:
    """The index follows updates (SQLite: the update trigger; a column not searched leaves it)."""
    path = f"/api/v1/projects/{world.project.id}/issues"
    issue = await _post(client, world, path.removeprefix("/api/v1"), {"title": "Cracked tile"})
    for body in ({"title": "Loose handrail"}, {"status": "IN_PROGRESS"}):
        response = await client.patch(f"{path}/{issue}", json=body, headers=world.manager.headers)
        assert response.status_code == 200, response.text
    assert await _found(client, world, "/projects/{p}/issues", "handrail") == [issue]
    assert await _found(client, world, "/projects/{p}/issues", "cracked") == []


async def _pages(client: httpx.AsyncClient, world: World, params: dict[str, str]) -> list[str]:
    """Every page of the issue list for ``params``, following the ``Link`` header."""
    url: str | None = f"/api/v1/projects/{world.project.id}/issues"
    found: list[str] = []
    query: dict[str, str] | None = params
    while url is not None:
        response = await client.get(url, params=query, headers=world.manager.headers)
        assert response.status_code == 200, response.text
        found += [row["id"] for row in response.json()]
        link = response.headers.get("link")
        url = link[1 : link.index(">")] if link else None
        query = None  # the next page's URL carries them
    return found


async def test_a_search_pages_and_syncs_with_every_value_written_in(
    client: httpx.AsyncClient, world: World
) -> None:
    """A search's statement holds its values as literals (``search.inline``): the project, the
    cursor, ``updatedSince``'s times and position page as they do as parameters."""
    path = f"/projects/{world.project.id}/issues"
    start = clock.now()
    found = []
    for n in range(5):
        clock.set_now(start + timedelta(minutes=n))
        title = f"Zebra crossing {n}" if n != 2 else "Kerb"
        found.append(await _post(client, world, path, {"title": title}))
    clock.set_now(start + timedelta(hours=1))
    zebras = [found[n] for n in (0, 1, 3, 4)]
    assert await _pages(client, world, {"q": "ZEBRA", "limit": "1"}) == zebras[::-1]
    since = {"q": "zebra", "limit": "1", "updatedSince": "2000-01-01T00:00:00Z"}
    assert await _pages(client, world, since) == zebras
    later = clock.iso(start + timedelta(minutes=1))
    assert await _pages(client, world, {**since, "updatedSince": later}) == zebras[1:]


async def test_the_migration_indexes_existing_rows_and_the_triggers_keep_step(
    tmp_path: Path,
) -> None:
    """SQLite (a file of its own, whichever database the suite uses): rows written before the
    search migration are found after it, and every write keeps each FTS5 table exact (FTS5's
    integrity check compares it with its table)."""
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path}/search.db")
    columns = "id, project_id, workspace_id, number, title, description, status, priority, "
    columns += "issue_kind, checklist, created_at, updated_at"
    values = "(:id, 'p', 'w', :n, :title, NULL, 'OPEN', 'MEDIUM', 'CONSTRUCTION', '[]', "
    values += "'2026-01-01 00:00:00', '2026-01-01 00:00:00')"
    insert = text(f"INSERT INTO issues ({columns}) VALUES {values}")  # noqa: S608
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda s: command.upgrade(alembic_config(s), "0022_webhooks"))
            await conn.execute(insert, {"id": "old", "n": 1, "title": "Büro leak"})
            await conn.run_sync(lambda s: command.upgrade(alembic_config(s), "heads"))
            found = select(Issue.id).where(search.matches("BÜRO", Issue.title, Issue.description))
            assert (await conn.execute(found)).scalars().all() == ["old"]
            await conn.execute(insert, {"id": "new", "n": 2, "title": "Büro tap"})
            await conn.execute(text("UPDATE issues SET title = 'Office' WHERE id = 'old'"))
            assert (await conn.execute(found)).scalars().all() == ["new"]
            await conn.execute(text("DELETE FROM issues WHERE id = 'new'"))
            assert (await conn.execute(found)).scalars().all() == []
            for table in search.SEARCHED:
                fts = f"{table}_search"
                check = f"INSERT INTO {fts} ({fts}) VALUES ('integrity-check')"  # noqa: S608
                await conn.execute(text(check))
    finally:
        await engine.dispose()


# --- PostgreSQL: the plans ----------------------------------------------------------------

postgresql_only = pytest.mark.skipif(
    database.engine.dialect.name != "postgresql", reason="the trigram indexes are PostgreSQL's"
)
# Rows added to the list's table in the test's project: a big project. Below about 7,000 the
# planner reads a rare word by a Seq Scan even in a custom plan (docs/decisions.md, "Search").
SEEDED = 10_000


@contextmanager
def _statements() -> Iterator[list[tuple[str, Any]]]:
    seen: list[tuple[str, Any]] = []

    def note(conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        seen.append((statement, parameters))

    event.listen(database.engine.sync_engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(database.engine.sync_engine, "before_cursor_execute", note)


async def _seed(table: str, row_id: str, searched: tuple[str, ...]) -> None:
    """SEEDED copies of one row in its table, each with other text in the searched columns
    and its own values in the unique ones."""
    async with database.engine.begin() as conn:
        columns = (await conn.execute(text(f"SELECT * FROM {table} LIMIT 0"))).keys()  # noqa: S608
        unique = {
            c
            for (c,) in await conn.execute(
                text(
                    "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = "
                    "i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisunique AND "
                    "i.indrelid = CAST(:t AS regclass)"
                ),
                {"t": table},
            )
        } - {"project_id", "workspace_id", "folder_id"}
        types = dict(
            (
                await conn.execute(
                    text(
                        "SELECT column_name, data_type FROM information_schema.columns "
                        "WHERE table_name = :t"
                    ),
                    {"t": table},
                )
            ).all()
        )

        def value(column: str) -> str:
            if column == "id":
                return "left(id, 16) || lpad(n::text, 16, '0')"
            if column in searched:
                return "'filler row ' || n"
            if column in unique and types[column] == "integer":
                return f"{column} + n"
            if column in unique:
                return f"{column} || '-' || n"
            return column

        names = ", ".join(columns)
        picked = ", ".join(value(c) for c in columns)
        await conn.execute(
            text(
                f"INSERT INTO {table} ({names}) SELECT {picked} FROM {table}, "  # noqa: S608
                f"generate_series(1, {SEEDED}) AS n WHERE id = :id"
            ),
            {"id": row_id},
        )
    # As autovacuum would after a bulk insert: the statistics, and GIN's pending list merged.
    async with database.engine.connect() as conn:
        vacuum = text(f"VACUUM ANALYZE {table}")
        await (await conn.execution_options(isolation_level="AUTOCOMMIT")).execute(vacuum)


async def _plan(statement: str, *, generic: bool) -> dict[str, Any]:
    """EXPLAIN of the list's own statement (with no parameters): prepared as asyncpg prepares
    it, then executed with a custom plan or the generic one."""
    async with database.engine.connect() as conn:
        raw = (await conn.get_raw_connection()).driver_connection
        name = f"search_{new_id()}"
        await raw.execute(f"PREPARE {name} AS {statement}")
        mode = "force_generic_plan" if generic else "force_custom_plan"
        await raw.execute(f"SET plan_cache_mode = {mode}")
        try:
            rows = await raw.fetch(f"EXPLAIN (FORMAT JSON) EXECUTE {name}")
        finally:
            await raw.execute(f"DEALLOCATE {name}")
            await raw.execute("RESET plan_cache_mode")
        found = rows[0][0]  # the engine's connections decode json themselves
        plan: dict[str, Any] = (json.loads(found) if isinstance(found, str) else found)[0]["Plan"]
        return plan


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


@postgresql_only
@pytest.mark.parametrize("name", RESOURCES)
async def test_the_search_uses_the_trigram_index(client: httpx.AsyncClient, name: str) -> None:
    resource = RESOURCES[name]
    world = await (om_world() if resource.om else make_world())
    word = f"zebra{new_id()[-6:]}"
    row = await resource.make(client, world, f"Needle {word}", "Rare", "N")
    table = {"rfi": "rfis", "punch": "punch_items", "field-reports": "field_reports"}.get(
        name, name
    )
    await _seed(table, row, search.SEARCHED[table])
    with _statements() as seen:
        assert await _found(client, world, resource.path, word.upper()) == [row]
        # an empty q filters nothing: more rows than a default page (100) when asked for them
        assert len(await _found(client, world, resource.path, "", limit=500)) > SEEDED // 100
    order = f"ORDER BY {table}.id DESC"
    [searched, _listed] = [(s, tuple(p)) for s, p in seen if order in s]
    assert "ILIKE" in searched[0]
    # Every value in the search's text (search.inline): its generic plan is its custom plan,
    # which knows the project.
    assert searched[1] == (), searched
    # A rare word's page is the trigram indexes' few rows, custom plan or generic (the same
    # search five times on one connection, or its next pages): never the table read whole, nor
    # its primary key or the project's list index walked, which reads every row of the project
    # to find one (for a common word such a walk stops at the page, and
    # tests/app/test_list_plans.py holds every list to the project's index).
    for generic in (False, True):
        plan = await _plan(searched[0], generic=generic)
        nodes = list(_nodes(plan))
        shape = [(n["Node Type"], n.get("Index Name") or n.get("Relation Name")) for n in nodes]
        seq = [n for n in nodes if n["Node Type"] == "Seq Scan" and n["Relation Name"] == table]
        walk = [n for n in nodes if n.get("Index Name") == f"pk_{table}" and "Index Cond" not in n]
        assert seq == walk == [], (name, generic, shape)
        used = [str(n.get("Index Name")) for n in nodes]
        assert any(i.startswith(f"ix_{table}_") and i.endswith("_trgm") for i in used), (
            name,
            generic,
            shape,
        )
