"""demo links: the links `plumbline demo` printed, kept for later runs to print again

Revision ID: 0029_demo_links
Revises: 0028_labour_person_index
Create Date: 2026-12-01 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import plumbline.db

revision: str = "0029_demo_links"
down_revision: str | Sequence[str] | None = "0028_labour_person_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "demo_links",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_demo_links_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_demo_links_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_demo_links")),
    )
    with op.batch_alter_table("demo_links", schema=None) as batch_op:
        batch_op.create_index("ix_demo_links_project_id", ["project_id", "position"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("demo_links", schema=None) as batch_op:
        batch_op.drop_index("ix_demo_links_project_id")
    op.drop_table("demo_links")
