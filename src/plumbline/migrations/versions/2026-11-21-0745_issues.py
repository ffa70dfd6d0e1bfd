"""issues

Revision ID: 0003_issues
Revises: 0001_foundation
Create Date: 2026-11-21 07:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

revision: str = "0003_issues"
down_revision: str | Sequence[str] | None = "0001_foundation"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "issues",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("priority", sa.String(length=10), nullable=False),
        sa.Column("issue_kind", sa.String(length=20), nullable=False),
        sa.Column("assignee_id", sa.String(length=32), nullable=True),
        sa.Column("due_date", sa.Date(), nullable=True),
        sa.Column("location", sa.String(length=500), nullable=True),
        sa.Column("file_id", sa.String(length=32), nullable=True),
        sa.Column("file_version_id", sa.String(length=32), nullable=True),
        sa.Column("page_number", sa.Integer(), nullable=True),
        sa.Column("pin", JSON, nullable=True),
        sa.Column("asset_id", sa.String(length=32), nullable=True),
        sa.Column("work_order_type", sa.String(length=30), nullable=True),
        sa.Column("maintenance_schedule_id", sa.String(length=32), nullable=True),
        sa.Column("checklist", JSON, nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_key_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("status_changed_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("resolved_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("closed_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_issues_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_issues")),
        sa.UniqueConstraint("project_id", "number", name=op.f("uq_issues_project_id_number")),
    )
    with op.batch_alter_table("issues", schema=None) as batch_op:
        batch_op.create_index(
            "ix_issues_maintenance_schedule", ["maintenance_schedule_id"], unique=False
        )
        batch_op.create_index(
            "ix_issues_project_assignee", ["project_id", "assignee_id"], unique=False
        )
        batch_op.create_index("ix_issues_project_id", ["project_id", "id"], unique=False)
        batch_op.create_index("ix_issues_project_kind", ["project_id", "issue_kind"], unique=False)
        batch_op.create_index("ix_issues_project_status", ["project_id", "status"], unique=False)
        batch_op.create_index(
            "ix_issues_project_updated", ["project_id", "updated_at"], unique=False
        )

    op.create_table(
        "issue_comments",
        sa.Column("issue_id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("author_id", sa.String(length=32), nullable=True),
        sa.Column("author_key_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["issue_id"],
            ["issues.id"],
            name=op.f("fk_issue_comments_issue_id_issues"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_issue_comments")),
    )
    with op.batch_alter_table("issue_comments", schema=None) as batch_op:
        batch_op.create_index("ix_issue_comments_issue_id", ["issue_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("issue_comments", schema=None) as batch_op:
        batch_op.drop_index("ix_issue_comments_issue_id")
    op.drop_table("issue_comments")
    with op.batch_alter_table("issues", schema=None) as batch_op:
        batch_op.drop_index("ix_issues_project_updated")
        batch_op.drop_index("ix_issues_project_status")
        batch_op.drop_index("ix_issues_project_kind")
        batch_op.drop_index("ix_issues_project_id")
        batch_op.drop_index("ix_issues_project_assignee")
        batch_op.drop_index("ix_issues_maintenance_schedule")
    op.drop_table("issues")
