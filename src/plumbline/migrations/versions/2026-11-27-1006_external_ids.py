"""external ids: the caller's own key on issues, assets and materials (bulk upsert)

Revision ID: 0020_external_ids
Revises: 0019_merge_integrations
Create Date: 2026-11-27 10:06:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_external_ids"
down_revision: str | Sequence[str] | None = "0019_merge_integrations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Unique among a project's live records that have one (a deleted record's key may be reused).
LIVE_EXTERNAL = "deleted_at IS NULL AND external_id IS NOT NULL"


def upgrade() -> None:
    for table in ("assets", "issues"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("external_id", sa.String(length=255), nullable=True))
            batch_op.create_index(
                f"uq_{table}_project_external_id_live",
                ["project_id", "external_id"],
                unique=True,
                sqlite_where=sa.text(LIVE_EXTERNAL),
                postgresql_where=sa.text(LIVE_EXTERNAL),
            )
    with op.batch_alter_table("materials", schema=None) as batch_op:
        batch_op.add_column(sa.Column("external_id", sa.String(length=255), nullable=True))
        batch_op.create_unique_constraint(
            batch_op.f("uq_materials_workspace_id_external_id"), ["workspace_id", "external_id"]
        )


def downgrade() -> None:
    with op.batch_alter_table("materials", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("uq_materials_workspace_id_external_id"), type_="unique"
        )
        batch_op.drop_column("external_id")
    for table in ("issues", "assets"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(
                f"uq_{table}_project_external_id_live",
                sqlite_where=sa.text(LIVE_EXTERNAL),
                postgresql_where=sa.text(LIVE_EXTERNAL),
            )
            batch_op.drop_column("external_id")
