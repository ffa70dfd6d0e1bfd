"""sso: workspace OpenID providers and domains, sign-ins in flight, external identities, SCIM
tokens, users and groups

Revision ID: 0023_sso
Revises: 0022_webhooks
Create Date: 2026-11-27 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import plumbline.db

revision: str = "0023_sso"
down_revision: str | Sequence[str] | None = "0022_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "external_identities",
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("issuer", sa.String(length=2048), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_sign_in_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_external_identities_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_external_identities")),
        sa.UniqueConstraint(
            "issuer", "subject", name=op.f("uq_external_identities_issuer_subject")
        ),
    )
    with op.batch_alter_table("external_identities", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_external_identities_user_id"), ["user_id"], unique=False
        )

    op.create_table(
        "scim_groups",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("display_name", sa.String(length=255), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=True),
        sa.Column(
            "members",
            JSON,
            nullable=False,
        ),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_scim_groups_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_groups")),
    )
    with op.batch_alter_table("scim_groups", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_scim_groups_workspace_id"), ["workspace_id"], unique=False
        )

    op.create_table(
        "scim_tokens",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_scim_tokens_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_scim_tokens_token_hash")),
    )
    with op.batch_alter_table("scim_tokens", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_scim_tokens_workspace_id"), ["workspace_id"], unique=False
        )

    op.create_table(
        "scim_users",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=True),
        sa.Column("user_name", sa.String(length=320), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("attributes", JSON, nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_scim_users_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_scim_users_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scim_users")),
        sa.UniqueConstraint(
            "workspace_id", "user_id", name=op.f("uq_scim_users_workspace_id_user_id")
        ),
    )
    with op.batch_alter_table("scim_users", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_scim_users_user_id"), ["user_id"], unique=False)

    op.create_table(
        "sso_configs",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("issuer", sa.String(length=2048), nullable=False),
        sa.Column("client_id", sa.String(length=500), nullable=False),
        sa.Column("client_secret", sa.Text(), nullable=False),
        sa.Column("required", sa.Boolean(), nullable=False),
        sa.Column("default_role", sa.String(length=20), nullable=False),
        sa.Column("verification_token", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_sso_configs_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_configs")),
        sa.UniqueConstraint("workspace_id", name=op.f("uq_sso_configs_workspace_id")),
    )
    op.create_table(
        "sso_domains",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("domain", sa.String(length=253), nullable=False),
        sa.Column("verified_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_sso_domains_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_domains")),
        sa.UniqueConstraint("domain", name=op.f("uq_sso_domains_domain")),
    )
    with op.batch_alter_table("sso_domains", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_sso_domains_workspace_id"), ["workspace_id"], unique=False
        )

    op.create_table(
        "sso_logins",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=128), nullable=False),
        sa.Column("code_verifier", sa.Text(), nullable=False),
        sa.Column("redirect_to", sa.String(length=2000), nullable=True),
        sa.Column("expires_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("used_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_sso_logins_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_logins")),
        sa.UniqueConstraint("state_hash", name=op.f("uq_sso_logins_state_hash")),
    )
    with op.batch_alter_table("sso_logins", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_sso_logins_workspace_id"), ["workspace_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("sso_logins", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sso_logins_workspace_id"))

    op.drop_table("sso_logins")
    with op.batch_alter_table("sso_domains", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sso_domains_workspace_id"))

    op.drop_table("sso_domains")
    op.drop_table("sso_configs")
    with op.batch_alter_table("scim_users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_scim_users_user_id"))

    op.drop_table("scim_users")
    with op.batch_alter_table("scim_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_scim_tokens_workspace_id"))

    op.drop_table("scim_tokens")
    with op.batch_alter_table("scim_groups", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_scim_groups_workspace_id"))

    op.drop_table("scim_groups")
    with op.batch_alter_table("external_identities", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_external_identities_user_id"))

    op.drop_table("external_identities")
