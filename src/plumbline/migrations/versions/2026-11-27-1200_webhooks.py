"""webhooks: a project's receivers and their deliveries; jobs run in order per key

Revision ID: 0022_webhooks
Revises: 0021_idempotency_keys
Create Date: 2026-11-27 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

revision: str = "0022_webhooks"
down_revision: str | Sequence[str] | None = "0021_idempotency_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=True),
        sa.Column("events", JSON, nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.String(length=500), nullable=True),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("previous_secret", sa.Text(), nullable=True),
        sa.Column(
            "previous_secret_expires_at", plumbline.db.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("failing_since", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_webhooks_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhooks")),
    )
    with op.batch_alter_table("webhooks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhooks_project_id"), ["project_id"], unique=False)

    op.create_table(
        "webhook_deliveries",
        sa.Column("webhook_id", sa.String(length=32), nullable=False),
        sa.Column("event_id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("event_type", sa.String(length=80), nullable=False),
        sa.Column("resource", sa.String(length=40), nullable=False),
        sa.Column("resource_id", sa.String(length=64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", JSON, nullable=False),
        sa.Column("job_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_attempt_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("delivered_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("failed_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_deliveries_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("webhook_id", "event_id", name=op.f("pk_webhook_deliveries")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("key", sa.String(length=200), nullable=True))
        batch_op.create_index("ix_jobs_key_created_at", ["key", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_key_created_at")
        batch_op.drop_column("key")

    op.drop_table("webhook_deliveries")
    with op.batch_alter_table("webhooks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhooks_project_id"))

    op.drop_table("webhooks")
