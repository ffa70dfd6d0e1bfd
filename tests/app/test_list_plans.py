"""Plans that cannot flip (issue 28, item 2; PostgreSQL). asyncpg prepares each statement once
per pooled connection, and after five runs PostgreSQL may keep a generic plan, made without the
parameters' values. Each list's main query (the statement that orders and limits its rows), as
the walk of every list route sends it, must have a generic plan that reads its table through an
index condition: no sequential scan of it and no walk of its whole primary key.

The walk's project (and workspace, user, parent records) is made big first: its rows of each
listed table are copied (new ids, the unique columns varied, foreign keys not enforced) to a few
thousand, beside the small scopes of the other tests, then analyzed; all in one transaction
rolled back at the end. A generic plan is made without the values, so one big scope shows which
plan every scope gets."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncConnection

from plumbline.config import settings
from plumbline.db import database
from tests.app.list_walk import Call, list_routes, walk

ROWS = 4000  # of each listed table, once copied
TEMPLATES = 50  # its newest rows, the walk's, copied
_ORDER = re.compile(r"ORDER BY (\w+)\.\w+(?: ASC| DESC)?(?:, \w+\.\w+(?: ASC| DESC)?)*\s+LIMIT")


def _main_statements(calls: list[Call]) -> dict[str, tuple[str, Any, str]]:
    """Each distinct list statement: (route and mode, its parameters, the ordered alias)."""
    found: dict[str, tuple[str, Any, str]] = {}
    for call in calls:
        for statement, params in call.statements:
            ordered = _ORDER.findall(statement)
            if ordered and statement.lstrip().upper().startswith(("SELECT", "WITH")):
                found.setdefault(statement, (f"{call.path} ({call.mode})", params, ordered[-1]))
    return found


def _sql_type(value: Any) -> str:
    """A declared type for a parameter: the statement's own casts make it exact."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "bigint"
    if isinstance(value, float):
        return "float8"
    if hasattr(value, "tzinfo"):
        return "timestamptz" if hasattr(value, "hour") else "date"
    return "text"


async def _explain(conn: AsyncConnection, statement: str, params: Any) -> dict[str, Any]:
    """The generic plan of ``statement`` (values are not needed: none are planned with)."""
    values = list(params or ())
    declared = f"({', '.join(_sql_type(v) for v in values)})" if values else ""
    arguments = f"({', '.join('NULL' for _ in values)})" if values else ""
    driver: Any = (await conn.get_raw_connection()).driver_connection
    await driver.execute(f"PREPARE listed {declared} AS {statement}")
    try:
        text = await driver.fetchval(f"EXPLAIN (FORMAT JSON) EXECUTE listed {arguments}")
    finally:
        await driver.execute("DEALLOCATE listed")
    explained = json.loads(text) if isinstance(text, str) else text  # the engine decodes JSON
    plan: dict[str, Any] = explained[0]["Plan"]
    return plan


def _nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = [plan]
    for child in plan.get("Plans", ()):
        nodes += _nodes(child)
    return nodes


def _scans(plan: dict[str, Any], alias: str) -> list[dict[str, Any]]:
    return [n for n in _nodes(plan) if n.get("Alias") == alias and "Relation Name" in n]


def _refusal(plan: dict[str, Any], alias: str) -> str | None:
    """Why the plan reads the listed table badly, if it does."""
    scans = _scans(plan, alias)
    if not scans:
        return f"no scan of {alias}"
    for node in scans:
        table = node["Relation Name"]
        if node["Node Type"] == "Seq Scan":
            return f"Seq Scan on {table}"
        index = node.get("Index Name", "")
        if index in (f"pk_{table}", f"{table}_pkey") and "Index Cond" not in node:
            return f"{node['Node Type']} using {index} without an index condition"
    return None


async def _copy_rows(conn: AsyncConnection, table: str) -> None:
    """Copies the newest rows of ``table`` up to about ``ROWS``: new ids, each unique index's
    most specific column varied (a name, a number, a time; else its last column), conflicts
    left out. Foreign keys are not enforced meanwhile (``session_replication_role``)."""
    raw: Any = (await conn.get_raw_connection()).driver_connection
    count = await raw.fetchval(f'SELECT count(*) FROM "{table}"')  # noqa: S608 (a table name)
    copies = max(1, ROWS // max(1, min(count, TEMPLATES)))
    columns = await raw.fetch(
        "SELECT column_name, data_type, character_maximum_length FROM information_schema.columns"
        " WHERE table_name = $1 AND table_schema = current_schema() AND is_generated = 'NEVER'"
        " ORDER BY ordinal_position",
        table,
    )
    uniques = await raw.fetch(
        "SELECT array_agg(a.attname::text ORDER BY k.ord) AS names FROM pg_index i"
        " CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord)"
        " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
        " WHERE i.indrelid = $1::regclass AND i.indisunique GROUP BY i.indexrelid",
        table,
    )
    varied = set()
    for (names,) in uniques:
        plain = [n for n in names if not n.endswith("_id")]
        varied.add(plain[-1] if plain else names[-1])
    selected = []
    for name, kind, length in columns:
        column = f'src."{name}"'
        if name in varied and kind in ("character varying", "text"):
            width = min(length or 32, 32)
            column = f"left(md5({column} || g::text), {width})"
        elif name in varied and kind in ("integer", "bigint"):
            column = f"{column} + g * 1000"
        elif name in varied and kind.startswith("timestamp"):
            column = f"{column} + g * interval '1 millisecond'"
        elif name in varied and kind == "date":
            column = f"{column} + g"
        selected.append(column)
    names = ", ".join(f'"{name}"' for name, _, _ in columns)
    newest = "ORDER BY id DESC" if any(name == "id" for name, _, _ in columns) else ""
    copy = (
        f'INSERT INTO "{table}" ({names}) SELECT {", ".join(selected)}'  # noqa: S608 (the catalog's names)
        f' FROM (SELECT * FROM "{table}" {newest} LIMIT {TEMPLATES}) AS src'
        f" CROSS JOIN generate_series(1, {copies}) AS g ON CONFLICT DO NOTHING"
    )
    await raw.execute(copy)
    await raw.execute(f'ANALYZE "{table}"')


async def test_every_list_query_has_an_indexed_generic_plan(
    client: httpx.AsyncClient, outbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if database.engine.dialect.name != "postgresql":
        pytest.skip("prepared statements and their generic plans are PostgreSQL's")
    monkeypatch.setattr(settings, "sync_settle_seconds", 0)
    spec = (await client.get("/api/v1/openapi.json")).json()
    calls = await walk(client, outbox, spec)
    statements = _main_statements(calls)
    routes = {c.path for c in calls if any(_ORDER.search(sql) for sql, _ in c.statements)}
    # every list but the caller's cloud connections (one per provider, not paged)
    assert routes == list_routes(spec) - {"/api/v1/cloud/connections"}
    async with database.engine.connect() as conn:
        await conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
        await conn.exec_driver_sql("SET LOCAL plan_cache_mode = force_generic_plan")
        tables = set()
        for statement, (_, params, alias) in statements.items():
            scans = _scans(await _explain(conn, statement, params), alias)
            tables |= {node["Relation Name"] for node in scans}
        for table in sorted(tables):
            await _copy_rows(conn, table)
        refused = {}
        for statement, (where, params, alias) in statements.items():
            reason = _refusal(await _explain(conn, statement, params), alias)
            if reason is not None:
                refused[where] = reason
        await conn.rollback()
    assert refused == {}
