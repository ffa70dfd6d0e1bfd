"""scheduler leases: one server runs each daily task once a day

Revision ID: 0023_scheduler_leases
Revises: 0022_webhooks
Create Date: 2026-11-27 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import plumbline.db

revision: str = "0023_scheduler_leases"
down_revision: str | Sequence[str] | None = "0022_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "scheduler_leases",
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("holder", sa.String(length=80), nullable=True),
        sa.Column("expires_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("done_day", sa.Date(), nullable=True),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_scheduler_leases")),
    )


def downgrade() -> None:
    op.drop_table("scheduler_leases")
