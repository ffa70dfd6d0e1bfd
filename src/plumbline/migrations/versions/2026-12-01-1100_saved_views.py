"""saved views

Revision ID: 0030_saved_views
Revises: 0029_demo_links
Create Date: 2026-12-01 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import plumbline.db

revision: str = "0030_saved_views"
down_revision: str | Sequence[str] | None = "0029_demo_links"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "saved_views",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("page", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("query", sa.String(length=2000), nullable=False),
        sa.Column("shared", sa.Boolean(), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_saved_views_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_saved_views_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_saved_views")),
    )
    with op.batch_alter_table("saved_views", schema=None) as batch_op:
        batch_op.create_index("ix_saved_views_project_page", ["project_id", "page"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("saved_views", schema=None) as batch_op:
        batch_op.drop_index("ix_saved_views_project_page")

    op.drop_table("saved_views")
