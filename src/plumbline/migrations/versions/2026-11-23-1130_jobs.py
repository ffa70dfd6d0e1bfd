"""jobs: the background job table replaces the e-mail outbox

Revision ID: 0007_jobs
Revises: 0006_merge_heads
Create Date: 2026-11-23 11:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

revision: str = "0007_jobs"
down_revision: str | Sequence[str] | None = "0006_merge_heads"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("run_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("errors", JSON, nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_jobs_finished_at"), ["finished_at"], unique=False)
        batch_op.create_index("ix_jobs_status_run_at", ["status", "run_at"], unique=False)
    # E-mails still waiting in the outbox become "mail.send" jobs; sent ones are dropped with
    # their payloads (which held one-time links).
    outbox = sa.table(
        "outbox",
        *(sa.column(c) for c in ("id", "payload", "attempts", "created_at", "sent_at", "kind")),
    )
    columns = ("id", "name", "payload", "status", "attempts", "run_at", "created_at", "errors")
    waiting = sa.select(
        outbox.c.id,
        sa.literal("mail.send"),
        outbox.c.payload,
        sa.literal("queued"),
        outbox.c.attempts,
        outbox.c.created_at,
        outbox.c.created_at,
        sa.literal([], JSON),
    ).where(outbox.c.sent_at.is_(None), outbox.c.kind == "email")
    op.execute(sa.table("jobs", *map(sa.column, columns)).insert().from_select(columns, waiting))
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_sent_at"))
    op.drop_table("outbox")


def downgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("sent_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_sent_at"), ["sent_at"], unique=False)
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_jobs_status_run_at")
        batch_op.drop_index(batch_op.f("ix_jobs_finished_at"))
    op.drop_table("jobs")
