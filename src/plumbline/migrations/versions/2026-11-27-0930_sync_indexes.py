"""sync indexes: the updatedSince lists' (project, updated_at, id) order on the big tables

Revision ID: 0018_sync_indexes
Revises: 0017_occupant
Create Date: 2026-11-27 09:30:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0018_sync_indexes"
# The head is 0017_occupant (revision ids are not in file order): the tables indexed here are
# created after 0010_proposal_templates.
down_revision: str | Sequence[str] | None = "0017_occupant"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, index, scope column): an updatedSince page reads one range of the index in order.
INDEXES = (
    ("issues", "ix_issues_project_updated_id", "project_id"),
    ("rfis", "ix_rfis_project_updated_id", "project_id"),
    ("punch_items", "ix_punch_items_project_updated_id", "project_id"),
    ("field_reports", "ix_field_reports_project_updated_id", "project_id"),
    ("proposals", "ix_proposals_project_updated_id", "project_id"),
    ("assets", "ix_assets_project_updated_id", "project_id"),
    ("materials", "ix_materials_workspace_updated_id", "workspace_id"),
    ("files", "ix_files_project_updated_id", "project_id"),
)


def upgrade() -> None:
    # The new issues index starts with the old one's columns, which it replaces.
    op.drop_index("ix_issues_project_updated", table_name="issues")
    for table, name, scope in INDEXES:
        op.create_index(name, table, [scope, "updated_at", "id"], unique=False)


def downgrade() -> None:
    for table, name, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
    op.create_index("ix_issues_project_updated", "issues", ["project_id", "updated_at"])
