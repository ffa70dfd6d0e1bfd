"""scim_users.user_name_key: userName as SCIM compares it, indexed per workspace

Revision ID: 0026_scim_user_name_key
Revises: 0025_work_order_costs
Create Date: 2026-11-29 09:00:00
"""

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_scim_user_name_key"
down_revision: str | Sequence[str] | None = "0025_work_order_costs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

USERS = sa.table("scim_users", sa.column("id"), sa.column("user_name"), sa.column("user_name_key"))


def _key(user_name: str) -> str:
    """``scim.documents.user_name_key`` as of this revision (tests/scim pins the two together)."""
    return unicodedata.normalize("NFC", user_name).lower()


def upgrade() -> None:
    op.add_column("scim_users", sa.Column("user_name_key", sa.Text(), nullable=True))
    bind = op.get_bind()
    for id_, user_name in bind.execute(sa.select(USERS.c.id, USERS.c.user_name)).all():
        bind.execute(USERS.update().where(USERS.c.id == id_).values(user_name_key=_key(user_name)))
    with op.batch_alter_table("scim_users") as batch:
        batch.alter_column("user_name_key", existing_type=sa.Text(), nullable=False)
        batch.create_index(
            "ix_scim_users_workspace_user_name_key", ["workspace_id", "user_name_key"]
        )


def downgrade() -> None:
    with op.batch_alter_table("scim_users") as batch:
        batch.drop_index("ix_scim_users_workspace_user_name_key")
        batch.drop_column("user_name_key")
