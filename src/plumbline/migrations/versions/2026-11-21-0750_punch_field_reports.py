"""punch items and field reports

Revision ID: 0005_punch_field_reports
Revises: 0001_foundation
Create Date: 2026-11-21 07:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

revision: str = "0005_punch_field_reports"
down_revision: str | Sequence[str] | None = "0001_foundation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
UTC = plumbline.db.UTCDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "punch_items",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("punch_number", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("location", sa.String(length=500), nullable=True),
        sa.Column("trade", sa.String(length=200), nullable=True),
        sa.Column("priority", sa.String(length=2), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("file_version_id", sa.String(length=32), nullable=True),
        sa.Column("page_number", sa.Integer(), nullable=True),
        sa.Column("pin", JSON, nullable=True),
        sa.Column("closed_at", UTC, nullable=True),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("deleted_at", UTC, nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("updated_at", UTC, nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_punch_items_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_punch_items")),
        sa.UniqueConstraint(
            "project_id", "punch_number", name=op.f("uq_punch_items_project_id_punch_number")
        ),
    )
    with op.batch_alter_table("punch_items", schema=None) as batch_op:
        batch_op.create_index("ix_punch_items_project_id_id", ["project_id", "id"], unique=False)

    op.create_table(
        "punch_item_assignees",
        sa.Column("punch_item_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["punch_item_id"],
            ["punch_items.id"],
            name=op.f("fk_punch_item_assignees_punch_item_id_punch_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("punch_item_id", "user_id", name=op.f("pk_punch_item_assignees")),
    )
    with op.batch_alter_table("punch_item_assignees", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_punch_item_assignees_user_id"), ["user_id"], unique=False
        )

    op.create_table(
        "field_reports",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("report_date", sa.Date(), nullable=False),
        sa.Column("report_kind", sa.String(length=10), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("weather", JSON, nullable=True),
        sa.Column("manpower", JSON, nullable=False),
        sa.Column("work_performed", sa.Text(), nullable=True),
        sa.Column("delays", sa.Text(), nullable=True),
        sa.Column("safety_notes", sa.Text(), nullable=True),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("last_emailed_at", UTC, nullable=True),
        sa.Column("email_count", sa.Integer(), nullable=False),
        sa.Column("deleted_at", UTC, nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("updated_at", UTC, nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_field_reports_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_field_reports")),
    )
    with op.batch_alter_table("field_reports", schema=None) as batch_op:
        batch_op.create_index("ix_field_reports_project_id_id", ["project_id", "id"], unique=False)
        batch_op.create_index(
            "ix_field_reports_project_date", ["project_id", "report_date"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("field_reports", schema=None) as batch_op:
        batch_op.drop_index("ix_field_reports_project_date")
        batch_op.drop_index("ix_field_reports_project_id_id")
    op.drop_table("field_reports")
    with op.batch_alter_table("punch_item_assignees", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_punch_item_assignees_user_id"))
    op.drop_table("punch_item_assignees")
    with op.batch_alter_table("punch_items", schema=None) as batch_op:
        batch_op.drop_index("ix_punch_items_project_id_id")
    op.drop_table("punch_items")
