"""om_inspections: inspection templates and runs (results, follow-ups) of O&M

Revision ID: 0012_om_inspections
Revises: 0011_om_assets
Create Date: 2026-11-23 14:20:42.355667
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
revision: str = "0012_om_inspections"
down_revision: str | Sequence[str] | None = "0011_om_assets"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "inspection_templates",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("frequency", sa.String(length=20), nullable=False),
        sa.Column("interval_days", sa.Integer(), nullable=True),
        sa.Column("anchor_day", sa.Integer(), nullable=False),
        sa.Column("next_due_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("items", JSON, nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_inspection_templates_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inspection_templates")),
    )
    with op.batch_alter_table("inspection_templates", schema=None) as batch_op:
        batch_op.create_index(
            "ix_inspection_templates_project_due", ["project_id", "next_due_at"], unique=False
        )
        batch_op.create_index(
            "ix_inspection_templates_project_id_id", ["project_id", "id"], unique=False
        )

    op.create_table(
        "inspection_runs",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("template_id", sa.String(length=32), nullable=False),
        sa.Column("asset_id", sa.String(length=32), nullable=True),
        sa.Column("assignee_id", sa.String(length=32), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("template_name", sa.String(length=200), nullable=False),
        sa.Column("items", JSON, nullable=False),
        sa.Column("results", JSON, nullable=False),
        sa.Column("signed_by", sa.String(length=200), nullable=True),
        sa.Column("completed_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("completed_by", sa.String(length=32), nullable=True),
        sa.Column("failed_count", sa.Integer(), nullable=False),
        sa.Column("follow_ups", JSON, nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_inspection_runs_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["template_id"],
            ["inspection_templates.id"],
            name=op.f("fk_inspection_runs_template_id_inspection_templates"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inspection_runs")),
    )
    with op.batch_alter_table("inspection_runs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_inspection_runs_project_completed", ["project_id", "completed_at"], unique=False
        )
        batch_op.create_index(
            "ix_inspection_runs_project_id_id", ["project_id", "id"], unique=False
        )
        batch_op.create_index("ix_inspection_runs_template_id", ["template_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("inspection_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_inspection_runs_template_id")
        batch_op.drop_index("ix_inspection_runs_project_id_id")
        batch_op.drop_index("ix_inspection_runs_project_completed")

    op.drop_table("inspection_runs")
    with op.batch_alter_table("inspection_templates", schema=None) as batch_op:
        batch_op.drop_index("ix_inspection_templates_project_id_id")
        batch_op.drop_index("ix_inspection_templates_project_due")

    op.drop_table("inspection_templates")
