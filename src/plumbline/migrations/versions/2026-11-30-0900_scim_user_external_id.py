"""scim_users: externalId indexed per workspace (the providers' ``externalId eq`` lookups)

Revision ID: 0027_scim_user_external_id
Revises: 0026_scim_user_name_key
Create Date: 2026-11-30 09:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0027_scim_user_external_id"
down_revision: str | Sequence[str] | None = "0026_scim_user_name_key"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_scim_users_workspace_external_id", "scim_users", ["workspace_id", "external_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_scim_users_workspace_external_id", table_name="scim_users")
