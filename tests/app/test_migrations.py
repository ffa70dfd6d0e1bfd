"""The migrations build exactly the schema the models describe, in one head."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

import plumbline.models  # noqa: F401 - every table on the metadata
from plumbline.db import Base, database
from plumbline.kit import search
from plumbline.migrate import alembic_config


def test_one_head() -> None:
    assert len(ScriptDirectory.from_config(alembic_config()).get_heads()) == 1


async def test_models_and_migrations_agree() -> None:
    async with database.engine.connect() as conn:
        differences = await conn.run_sync(
            lambda sync: compare_metadata(
                MigrationContext.configure(
                    sync, opts={"include_object": search.schema_filter(sync.dialect.name)}
                ),
                Base.metadata,
            )
        )
    assert differences == []
