"""proposal flow: portal token, revisions, comments, client messages, reminders

Revision ID: 0009_proposal_flow
Revises: 0008_proposals
Create Date: 2026-11-23 14:21:04.452353
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
revision: str = "0009_proposal_flow"
down_revision: str | Sequence[str] | None = "0008_proposals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "proposal_comments",
        sa.Column("proposal_id", sa.String(length=32), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["proposal_id"],
            ["proposals.id"],
            name=op.f("fk_proposal_comments_proposal_id_proposals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposal_comments")),
    )
    with op.batch_alter_table("proposal_comments", schema=None) as batch_op:
        batch_op.create_index(
            "ix_proposal_comments_proposal_id_id", ["proposal_id", "id"], unique=False
        )

    op.create_table(
        "proposal_messages",
        sa.Column("proposal_id", sa.String(length=32), nullable=False),
        sa.Column("author", sa.String(length=20), nullable=False),
        sa.Column("author_name", sa.String(length=200), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["proposal_id"],
            ["proposals.id"],
            name=op.f("fk_proposal_messages_proposal_id_proposals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposal_messages")),
    )
    with op.batch_alter_table("proposal_messages", schema=None) as batch_op:
        batch_op.create_index(
            "ix_proposal_messages_proposal_id_id", ["proposal_id", "id"], unique=False
        )

    op.create_table(
        "proposal_reminders",
        sa.Column("proposal_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["proposal_id"],
            ["proposals.id"],
            name=op.f("fk_proposal_reminders_proposal_id_proposals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("proposal_id", "kind", name=op.f("pk_proposal_reminders")),
    )
    op.create_table(
        "proposal_revisions",
        sa.Column("proposal_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("snapshot", JSON, nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["proposal_id"],
            ["proposals.id"],
            name=op.f("fk_proposal_revisions_proposal_id_proposals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposal_revisions")),
    )
    with op.batch_alter_table("proposal_revisions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_proposal_revisions_proposal_id_id", ["proposal_id", "id"], unique=False
        )

    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.add_column(sa.Column("token_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("sent_by", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("signature_png", sa.LargeBinary(), nullable=True))
        batch_op.create_index(batch_op.f("ix_proposals_token_hash"), ["token_hash"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_proposals_token_hash"))
        batch_op.drop_column("signature_png")
        batch_op.drop_column("sent_by")
        batch_op.drop_column("token_hash")

    with op.batch_alter_table("proposal_revisions", schema=None) as batch_op:
        batch_op.drop_index("ix_proposal_revisions_proposal_id_id")

    op.drop_table("proposal_revisions")
    op.drop_table("proposal_reminders")
    with op.batch_alter_table("proposal_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_proposal_messages_proposal_id_id")

    op.drop_table("proposal_messages")
    with op.batch_alter_table("proposal_comments", schema=None) as batch_op:
        batch_op.drop_index("ix_proposal_comments_proposal_id_id")

    op.drop_table("proposal_comments")
