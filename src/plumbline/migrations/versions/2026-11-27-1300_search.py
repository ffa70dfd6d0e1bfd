"""search: the lists' q served by an index (trigram GIN on PostgreSQL, FTS5 on SQLite)

Revision ID: 0023_search
Revises: 0022_webhooks
Create Date: 2026-11-27 13:00:00
"""

from collections.abc import Sequence

from alembic import op

from plumbline.kit import search

revision: str = "0023_search"
down_revision: str | Sequence[str] | None = "0022_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Each list's searched columns (the models' ``search.indexes``).
SEARCHED = (
    ("issues", ("title", "description")),
    ("rfis", ("title", "question")),
    ("punch_items", ("title", "notes", "location")),
    ("field_reports", ("title", "work_performed", "delays", "safety_notes", "notes")),
    ("proposals", ("title", "reference", "client_name", "client_company", "client_email")),
    ("assets", ("tag", "name", "serial_number", "model", "manufacturer")),
    ("materials", ("name", "sku", "supplier")),
    ("files", ("normalized_name",)),
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # An FTS5 table per list with its triggers, filled with the existing rows.
        for table, columns in SEARCHED:
            for statement in search.fts_statements(table, columns):
                op.execute(statement)
        return
    # pg_trgm is a trusted extension (PostgreSQL 13+): the database's owner may create it.
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for table, columns in SEARCHED:
        for column in columns:
            op.create_index(
                f"ix_{table}_{column}_trgm",
                table,
                [column],
                postgresql_using="gin",
                postgresql_ops={column: "gin_trgm_ops"},
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for table, _ in reversed(SEARCHED):
            for statement in search.drop_fts_statements(table):
                op.execute(statement)
        return
    for table, columns in reversed(SEARCHED):
        for column in reversed(columns):
            op.drop_index(f"ix_{table}_{column}_trgm", table_name=table)
