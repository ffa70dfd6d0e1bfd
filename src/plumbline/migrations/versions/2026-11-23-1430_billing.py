"""billing: processor events applied once, the time of the last subscription event

Revision ID: 0014_billing
Revises: 0013_schedule_materials
Create Date: 2026-11-23 14:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import plumbline.db

revision: str = "0014_billing"
down_revision: str | Sequence[str] | None = "0013_schedule_materials"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "billing_events",
        sa.Column("event_id", sa.String(length=255), nullable=False),
        sa.Column("type", sa.String(length=100), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=True),
        sa.Column("outcome", sa.String(length=20), nullable=False),
        sa.Column("received_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_billing_events")),
    )
    with op.batch_alter_table("workspaces") as batch:
        batch.add_column(
            sa.Column("billing_event_at", plumbline.db.UTCDateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("workspaces") as batch:
        batch.drop_column("billing_event_at")
    op.drop_table("billing_events")
