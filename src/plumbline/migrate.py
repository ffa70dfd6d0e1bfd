"""Schema migrations shipped in the package: ``plumbline db upgrade`` works from anywhere."""

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

from plumbline.db import database

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option(
        "file_template", "%%(year)d-%%(month).2d-%%(day).2d-%%(hour).2d%%(minute).2d_%%(slug)s"
    )
    config.attributes["connection"] = connection
    return config


async def upgrade(revision: str = "heads") -> None:
    async with database.engine.begin() as conn:
        await conn.run_sync(lambda sync: command.upgrade(alembic_config(sync), revision))


async def autogenerate(message: str) -> None:
    async with database.engine.begin() as conn:
        await conn.run_sync(
            lambda sync: command.revision(alembic_config(sync), message=message, autogenerate=True)
        )
