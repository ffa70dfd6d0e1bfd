"""Alembic environment: runs on the connection the caller hands over (see plumbline.migrate)."""

from typing import Any

from alembic import context

import plumbline.models  # noqa: F401 - registers every table on the metadata
from plumbline.db import Base
from plumbline.kit import search

connection = context.config.attributes["connection"]
applied: list[str] = context.config.attributes.setdefault("applied", [])


def _applied(*, step: Any, **_: Any) -> None:
    """Notes each revision applied (merge revisions too), for `plumbline db upgrade` to report."""
    if step.is_upgrade and step.up_revision_id is not None:
        applied.append(step.up_revision_id)


context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
    include_object=search.schema_filter(connection.dialect.name),
    on_version_apply=_applied,
)
with context.begin_transaction():
    context.run_migrations()
