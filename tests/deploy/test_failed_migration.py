"""What a failed upgrade leaves (docs/deploy.md, Upgrades): `plumbline db upgrade` runs all the
pending migrations in one transaction, so on PostgreSQL and SQLite alike a failure leaves the
database at the revision it was at, nothing of the run applied, and the servers' readiness says
the schema is behind."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from plumbline.kit.ids import new_id
from plumbline.migrate import alembic_config
from tests.deploy.processes import serving

SERVER = os.environ.get("PLUMBLINE_TEST_DATABASE_URL")


@pytest.fixture
async def scratch(tmp_path: Path) -> AsyncIterator[str]:
    """An empty database of the kind the suite runs on."""
    if SERVER is None:
        yield f"sqlite+aiosqlite:///{tmp_path / 'scratch.db'}"
        return
    name = f"{make_url(SERVER).database}_scratch_{new_id()[-8:]}"
    admin = create_async_engine(SERVER, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(SERVER).set(database=name).render_as_string(hide_password=False)
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()


def upgrade(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plumbline.cli", "db", "upgrade", *args],
        env={**os.environ, "PLUMBLINE_DATABASE_URL": url, "NO_COLOR": "1", "COLUMNS": "200"},
        capture_output=True,
        text=True,
        check=False,
    )


async def query(url: str, statement: str) -> list[object]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return list((await conn.execute(text(statement))).scalars())
    finally:
        await engine.dispose()


async def test_a_failed_upgrade_leaves_the_database_as_it_was(scratch: str) -> None:
    first = upgrade(scratch, "--revision", "0021_idempotency_keys")
    assert first.returncode == 0, first.stderr
    # A pending migration will fail: its table is already there.
    engine = create_async_engine(scratch)
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE scheduler_leases (x INTEGER)"))
    await engine.dispose()

    failed = upgrade(scratch)
    assert failed.returncode != 0
    assert "scheduler_leases" in failed.stderr
    assert await query(scratch, "SELECT version_num FROM alembic_version") == [
        "0021_idempotency_keys"
    ]
    # 0022 (webhooks) ran before the failure, in the same transaction: rolled back with it.
    tables = (
        "SELECT name FROM sqlite_master WHERE name LIKE 'webhook%'"
        if scratch.startswith("sqlite")
        else "SELECT tablename FROM pg_tables WHERE tablename LIKE 'webhook%'"
    )
    assert await query(scratch, tables) == []

    with serving({"PLUMBLINE_DATABASE_URL": scratch}) as url:
        ready = httpx.get(f"{url}/api/v1/ready", timeout=30)
    assert ready.status_code == 503
    assert ready.json()["checks"]["migrations"].startswith("behind: at 0021_idempotency_keys")

    # Fixed (the stray table dropped), the same command finishes the upgrade.
    engine = create_async_engine(scratch)
    async with engine.begin() as conn:
        await conn.execute(text("DROP TABLE scheduler_leases"))
    await engine.dispose()
    again = upgrade(scratch)
    assert again.returncode == 0, again.stderr
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert f"0022_webhooks → {head}" in again.stdout
