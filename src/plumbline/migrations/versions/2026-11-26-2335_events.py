"""events: one row per change integrators follow, numbered per stream in commit order

Revision ID: 0018_events
Revises: 0017_occupant
Create Date: 2026-11-26 23:35:18.083985
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import plumbline.db

revision: str = "0018_events"
down_revision: str | Sequence[str] | None = "0017_occupant"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "event_streams",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("purged_seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_streams")),
    )
    op.create_table(
        "events",
        sa.Column("stream", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=True),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("resource", sa.String(length=32), nullable=False),
        sa.Column("resource_id", sa.String(length=32), nullable=False),
        sa.Column("actor", plumbline.db.JSONType, nullable=False),
        sa.Column("data", plumbline.db.JSONType, nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_events_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("stream", "seq", name=op.f("uq_events_stream_seq")),
    )
    op.create_index("ix_events_created_at", "events", ["created_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_events_created_at", table_name="events")
    op.drop_table("events")
    op.drop_table("event_streams")
