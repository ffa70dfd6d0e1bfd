"""schedule and materials: project schedules (a header row per project, tasks), workspace materials

Revision ID: 0013_schedule_materials
Revises: 0012_om_inspections
Create Date: 2026-11-23 14:20:31.599887
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
revision: str = "0013_schedule_materials"
down_revision: str | Sequence[str] | None = "0012_om_inspections"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "materials",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("unit", sa.String(length=50), nullable=False),
        sa.Column("unit_price", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("sku", sa.String(length=100), nullable=True),
        sa.Column("category", sa.String(length=100), nullable=True),
        sa.Column("supplier", sa.String(length=200), nullable=True),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_materials_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_materials")),
        sa.UniqueConstraint("workspace_id", "sku", name=op.f("uq_materials_workspace_id_sku")),
    )
    with op.batch_alter_table("materials", schema=None) as batch_op:
        batch_op.create_index("ix_materials_workspace_id_id", ["workspace_id", "id"], unique=False)

    op.create_table(
        "schedule_tasks",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("start_date", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("end_date", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("progress_percent", sa.SmallInteger(), nullable=False),
        sa.Column("parent_id", sa.String(length=64), nullable=True),
        sa.Column("is_milestone", sa.Boolean(), nullable=False),
        sa.Column("assignee_id", sa.String(length=32), nullable=True),
        sa.Column("dependencies", JSON, nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_schedule_tasks_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("project_id", "id", name=op.f("pk_schedule_tasks")),
    )
    op.create_table(
        "schedules",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_schedules_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("project_id", name=op.f("pk_schedules")),
    )


def downgrade() -> None:
    op.drop_table("schedules")
    op.drop_table("schedule_tasks")
    with op.batch_alter_table("materials", schema=None) as batch_op:
        batch_op.drop_index("ix_materials_workspace_id_id")

    op.drop_table("materials")
