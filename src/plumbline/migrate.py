"""Schema migrations shipped in the package: ``plumbline db upgrade`` works from anywhere."""

import asyncio
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection

from plumbline.db import database

log = logging.getLogger("plumbline.migrate")
MIGRATIONS = Path(__file__).parent / "migrations"


@dataclass(frozen=True)
class Upgraded:
    applied: tuple[str, ...]  # the revisions applied, in order (merge revisions included)
    heads: tuple[str, ...]  # where the database is now


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option(
        "file_template", "%%(year)d-%%(month).2d-%%(day).2d-%%(hour).2d%%(minute).2d_%%(slug)s"
    )
    config.attributes["connection"] = connection
    config.attributes["applied"] = []  # env.py appends each revision as it is applied
    return config


async def upgrade(revision: str = "heads") -> Upgraded:
    def run(sync: Connection) -> Upgraded:
        config = alembic_config(sync)
        command.upgrade(config, revision)
        heads = MigrationContext.configure(sync).get_current_heads()
        return Upgraded(tuple(config.attributes["applied"]), tuple(sorted(heads)))

    async with database.engine.begin() as conn:
        return await conn.run_sync(run)


async def wait_for_database(seconds: float) -> None:
    """Return once the database accepts a connection, trying for up to ``seconds`` (a migration
    started with its database, in a container); the last error after that."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            async with database.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return
        except Exception as exc:
            if time.monotonic() >= deadline:
                raise
            log.info("waiting for the database", extra={"error": str(exc)[:200]})
            await asyncio.sleep(1)


async def autogenerate(message: str) -> None:
    async with database.engine.begin() as conn:
        await conn.run_sync(
            lambda sync: command.revision(alembic_config(sync), message=message, autogenerate=True)
        )
