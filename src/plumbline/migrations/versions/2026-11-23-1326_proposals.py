"""proposals: priced offers to clients, line items stored whole

Revision ID: 0008_proposals
Revises: 0007_jobs
Create Date: 2026-11-23 13:26:13.359153
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
revision: str = "0008_proposals"
down_revision: str | Sequence[str] | None = "0007_jobs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "proposals",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("reference", sa.String(length=32), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("client_name", sa.String(length=200), nullable=True),
        sa.Column("client_email", sa.String(length=400), nullable=True),
        sa.Column("client_company", sa.String(length=200), nullable=True),
        sa.Column("valid_until", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("cover_letter", sa.Text(), nullable=True),
        sa.Column("items", JSON, nullable=False),
        sa.Column("subtotal", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("work_price_percent", sa.Numeric(precision=7, scale=4), nullable=False),
        sa.Column("work_amount", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("tax_percent", sa.Numeric(precision=7, scale=4), nullable=False),
        sa.Column("tax_amount", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("discount", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("sent_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("viewed_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("accepted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("signer_name", sa.String(length=200), nullable=True),
        sa.Column("declined_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("decline_reason", sa.String(length=20), nullable=True),
        sa.Column("decline_comment", sa.Text(), nullable=True),
        sa.Column("change_request_comment", sa.Text(), nullable=True),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_proposals_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposals")),
    )
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.create_index("ix_proposals_project_id_id", ["project_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.drop_index("ix_proposals_project_id_id")

    op.drop_table("proposals")
