"""om_work_order_costs: a person's labour entries by start, per workspace (the overlap check)

Revision ID: 0028_labour_person_index
Revises: 0027_scim_user_external_id
Create Date: 2026-12-01 09:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0028_labour_person_index"
down_revision: str | Sequence[str] | None = "0027_scim_user_external_id"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_om_work_order_costs_person_started",
        "om_work_order_costs",
        ["workspace_id", "user_id", "started_at"],
    )


def downgrade() -> None:
    op.drop_index("ix_om_work_order_costs_person_started", table_name="om_work_order_costs")
