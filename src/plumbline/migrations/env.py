"""Alembic environment: runs on the connection the caller hands over (see plumbline.migrate)."""

from alembic import context

import plumbline.models  # noqa: F401 - registers every table on the metadata
from plumbline.db import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
