"""calendar feeds: secret iCalendar subscription URLs of a user or a project

Revision ID: 0018_calendar_feeds
Revises: 0017_occupant
Create Date: 2026-11-27 07:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import plumbline.db

revision: str = "0018_calendar_feeds"
down_revision: str | Sequence[str] | None = "0017_occupant"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "calendar_feeds",
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=True),
        sa.Column("workspace_id", sa.String(length=32), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_calendar_feeds_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_calendar_feeds_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_calendar_feeds_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_calendar_feeds")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_calendar_feeds_token_hash")),
    )
    with op.batch_alter_table("calendar_feeds", schema=None) as batch_op:
        batch_op.create_index("ix_calendar_feeds_project_id", ["project_id", "id"], unique=False)
        batch_op.create_index("ix_calendar_feeds_user_id", ["user_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("calendar_feeds", schema=None) as batch_op:
        batch_op.drop_index("ix_calendar_feeds_user_id")
        batch_op.drop_index("ix_calendar_feeds_project_id")
    op.drop_table("calendar_feeds")
