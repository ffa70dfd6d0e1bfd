"""proposal templates: a workspace's letter bodies with defaults for new proposals

Revision ID: 0010_proposal_templates
Revises: 0009_proposal_flow
Create Date: 2026-11-23 14:32:30.597417
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import plumbline.db

revision: str = "0010_proposal_templates"
down_revision: str | Sequence[str] | None = "0009_proposal_flow"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "proposal_templates",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("tax_percent", sa.Numeric(precision=7, scale=4), nullable=True),
        sa.Column("valid_days", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_proposal_templates_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposal_templates")),
        sa.UniqueConstraint(
            "workspace_id", "name", name=op.f("uq_proposal_templates_workspace_id_name")
        ),
    )


def downgrade() -> None:
    op.drop_table("proposal_templates")
