"""Schema migrations shipped in the package: ``plumbline db upgrade`` works from anywhere."""

from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Connection

from plumbline.db import database

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


async def autogenerate(message: str) -> None:
    async with database.engine.begin() as conn:
        await conn.run_sync(
            lambda sync: command.revision(alembic_config(sync), message=message, autogenerate=True)
        )
