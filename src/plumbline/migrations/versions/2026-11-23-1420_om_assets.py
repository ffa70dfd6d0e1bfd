"""om_assets: assets and meter readings, maintenance schedules, their work orders and completions

Revision ID: 0011_om_assets
Revises: 0010_proposal_templates
Create Date: 2026-11-23 14:20:35.743731
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
revision: str = "0011_om_assets"
down_revision: str | Sequence[str] | None = "0010_proposal_templates"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "assets",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("tag", sa.String(length=100), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("category", sa.String(length=100), nullable=True),
        sa.Column("manufacturer", sa.String(length=200), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("serial_number", sa.String(length=200), nullable=True),
        sa.Column("location", sa.String(length=500), nullable=True),
        sa.Column("install_date", sa.Date(), nullable=True),
        sa.Column("warranty_expires", sa.Date(), nullable=True),
        sa.Column("parent_asset_id", sa.String(length=32), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("meters", JSON, nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_assets_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assets")),
    )
    with op.batch_alter_table("assets", schema=None) as batch_op:
        batch_op.create_index("ix_assets_project_id_id", ["project_id", "id"], unique=False)
        batch_op.create_index(
            "uq_assets_project_tag_live",
            ["project_id", "tag"],
            unique=True,
            sqlite_where=sa.text("deleted_at IS NULL"),
            postgresql_where=sa.text("deleted_at IS NULL"),
        )

    op.create_table(
        "asset_meter_readings",
        sa.Column("asset_id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("meter_type", sa.String(length=50), nullable=False),
        sa.Column("value", sa.Numeric(precision=18, scale=4), nullable=False),
        sa.Column("read_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("recorded_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["asset_id"],
            ["assets.id"],
            name=op.f("fk_asset_meter_readings_asset_id_assets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_asset_meter_readings")),
    )
    with op.batch_alter_table("asset_meter_readings", schema=None) as batch_op:
        batch_op.create_index(
            "ix_asset_meter_readings_asset", ["asset_id", "meter_type", "read_at"], unique=False
        )

    op.create_table(
        "maintenance_schedules",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("asset_id", sa.String(length=32), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("frequency", sa.String(length=20), nullable=False),
        sa.Column("interval_days", sa.Integer(), nullable=True),
        sa.Column("basis", sa.String(length=10), nullable=False),
        sa.Column("anchor_day", sa.Integer(), nullable=False),
        sa.Column("next_due_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_completed_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("assignee_id", sa.String(length=32), nullable=True),
        sa.Column("priority", sa.String(length=10), nullable=False),
        sa.Column("meter_type", sa.String(length=50), nullable=True),
        sa.Column("meter_interval", sa.Numeric(precision=18, scale=4), nullable=True),
        sa.Column("meter_threshold", sa.Numeric(precision=18, scale=4), nullable=True),
        sa.Column("meter_baseline", sa.Numeric(precision=18, scale=4), nullable=True),
        sa.Column("meter_due_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("checklist", JSON, nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["asset_id"],
            ["assets.id"],
            name=op.f("fk_maintenance_schedules_asset_id_assets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_maintenance_schedules_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_maintenance_schedules")),
    )
    with op.batch_alter_table("maintenance_schedules", schema=None) as batch_op:
        batch_op.create_index(
            "ix_maintenance_schedules_project_id_id", ["project_id", "id"], unique=False
        )

    op.create_table(
        "maintenance_completions",
        sa.Column("schedule_id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("work_order_id", sa.String(length=32), nullable=True),
        sa.Column("due_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("completed_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("completed_by", sa.String(length=32), nullable=True),
        sa.Column("on_time", sa.Boolean(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("meter_reading", sa.Numeric(precision=18, scale=4), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["schedule_id"],
            ["maintenance_schedules.id"],
            name=op.f("fk_maintenance_completions_schedule_id_maintenance_schedules"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_maintenance_completions")),
        sa.UniqueConstraint("work_order_id", name=op.f("uq_maintenance_completions_work_order_id")),
    )
    with op.batch_alter_table("maintenance_completions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_maintenance_completions_schedule", ["schedule_id", "completed_at"], unique=False
        )

    op.create_table(
        "maintenance_work_orders",
        sa.Column("schedule_id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("due_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("issue_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["schedule_id"],
            ["maintenance_schedules.id"],
            name=op.f("fk_maintenance_work_orders_schedule_id_maintenance_schedules"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_maintenance_work_orders")),
        sa.UniqueConstraint(
            "schedule_id", "due_at", name=op.f("uq_maintenance_work_orders_schedule_id_due_at")
        ),
    )
    with op.batch_alter_table("maintenance_work_orders", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_maintenance_work_orders_issue_id"), ["issue_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("maintenance_work_orders", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_maintenance_work_orders_issue_id"))

    op.drop_table("maintenance_work_orders")
    with op.batch_alter_table("maintenance_completions", schema=None) as batch_op:
        batch_op.drop_index("ix_maintenance_completions_schedule")

    op.drop_table("maintenance_completions")
    with op.batch_alter_table("maintenance_schedules", schema=None) as batch_op:
        batch_op.drop_index("ix_maintenance_schedules_project_id_id")

    op.drop_table("maintenance_schedules")
    with op.batch_alter_table("asset_meter_readings", schema=None) as batch_op:
        batch_op.drop_index("ix_asset_meter_readings_asset")

    op.drop_table("asset_meter_readings")
    with op.batch_alter_table("assets", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_assets_project_tag_live",
            sqlite_where=sa.text("deleted_at IS NULL"),
            postgresql_where=sa.text("deleted_at IS NULL"),
        )
        batch_op.drop_index("ix_assets_project_id_id")

    op.drop_table("assets")
