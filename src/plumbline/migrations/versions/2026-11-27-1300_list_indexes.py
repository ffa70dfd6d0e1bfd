"""list indexes: each list's filter and both its orders, so that generic plans use them too

Each list reads ``WHERE <scope> = ? ORDER BY id DESC`` (newest first) or, with updatedSince,
``WHERE <scope> = ? AND <change time> >= ? ORDER BY <change time>, id``: an index on
``(scope, id)`` and one on ``(scope, change time, id)`` read one range in order, whatever the
plan. Without them a generic plan (asyncpg prepares each statement once per connection) may walk
the whole primary key backwards filtering by scope. Partial on ``deleted_at IS NULL`` where a
table is soft-deleted and its list leaves deleted rows out. An index these make redundant (a
prefix of a new one) is replaced.

Revision ID: 0023_list_indexes
Revises: 0022_webhooks
Create Date: 2026-11-27 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023_list_indexes"
down_revision: str | Sequence[str] | None = "0022_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE = "deleted_at IS NULL"

# (table, index, columns, partial on LIVE)
INDEXES: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    (
        "issue_comments",
        "ix_issue_comments_issue_created_id",
        ("issue_id", "created_at", "id"),
        False,
    ),
    ("rfi_messages", "ix_rfi_messages_rfi_created_id", ("rfi_id", "created_at", "id"), False),
    (
        "proposal_revisions",
        "ix_proposal_revisions_proposal_created_id",
        ("proposal_id", "created_at", "id"),
        False,
    ),
    (
        "proposal_comments",
        "ix_proposal_comments_proposal_created_id",
        ("proposal_id", "created_at", "id"),
        False,
    ),
    (
        "proposal_messages",
        "ix_proposal_messages_proposal_created_id",
        ("proposal_id", "created_at", "id"),
        False,
    ),
    (
        "occupant_links",
        "ix_occupant_links_project_created_id",
        ("project_id", "created_at", "id"),
        False,
    ),
    ("asset_meter_readings", "ix_asset_meter_readings_asset_id_id", ("asset_id", "id"), False),
    (
        "asset_meter_readings",
        "ix_asset_meter_readings_asset_created_id",
        ("asset_id", "created_at", "id"),
        False,
    ),
    (
        "maintenance_schedules",
        "ix_maintenance_schedules_project_updated_id",
        ("project_id", "updated_at", "id"),
        False,
    ),
    (
        "inspection_templates",
        "ix_inspection_templates_project_updated_id",
        ("project_id", "updated_at", "id"),
        True,
    ),
    (
        "inspection_runs",
        "ix_inspection_runs_project_updated_id",
        ("project_id", "updated_at", "id"),
        True,
    ),
    ("notifications", "ix_notifications_user_id_id", ("user_id", "id"), False),
    ("notifications", "ix_notifications_user_created_id", ("user_id", "created_at", "id"), False),
    ("memberships", "ix_memberships_workspace_id_id", ("workspace_id", "id"), False),
    (
        "memberships",
        "ix_memberships_workspace_joined_id",
        ("workspace_id", "joined_at", "id"),
        False,
    ),
    ("invites", "ix_invites_workspace_id_id", ("workspace_id", "id"), False),
    ("invites", "ix_invites_workspace_created_id", ("workspace_id", "created_at", "id"), False),
    ("email_invites", "ix_email_invites_workspace_id_id", ("workspace_id", "id"), False),
    (
        "email_invites",
        "ix_email_invites_workspace_created_id",
        ("workspace_id", "created_at", "id"),
        False,
    ),
    ("projects", "ix_projects_workspace_id_id", ("workspace_id", "id"), True),
    ("projects", "ix_projects_workspace_updated_id", ("workspace_id", "updated_at", "id"), True),
    ("proposal_templates", "ix_proposal_templates_workspace_id_id", ("workspace_id", "id"), False),
    (
        "proposal_templates",
        "ix_proposal_templates_workspace_updated_id",
        ("workspace_id", "updated_at", "id"),
        False,
    ),
    ("api_keys", "ix_api_keys_project_id_id", ("project_id", "id"), False),
    ("api_keys", "ix_api_keys_project_created_id", ("project_id", "created_at", "id"), False),
    ("audit_logs", "ix_audit_logs_project_id_id", ("project_id", "id"), False),
    ("audit_logs", "ix_audit_logs_project_created_id", ("project_id", "created_at", "id"), False),
    ("audit_logs", "ix_audit_logs_project_entity_id", ("project_id", "entity_id", "id"), False),
    ("folders", "ix_folders_project_id_id", ("project_id", "id"), False),
    ("folders", "ix_folders_project_parent_id", ("project_id", "parent_id", "id"), False),
    ("folders", "ix_folders_project_updated_id", ("project_id", "updated_at", "id"), False),
    ("files", "ix_files_project_id_id", ("project_id", "id"), True),
    ("calendar_feeds", "ix_calendar_feeds_user_created_id", ("user_id", "created_at", "id"), False),
    (
        "calendar_feeds",
        "ix_calendar_feeds_project_created_id",
        ("project_id", "created_at", "id"),
        False,
    ),
    ("webhooks", "ix_webhooks_project_id_id", ("project_id", "id"), False),
    ("webhooks", "ix_webhooks_project_updated_id", ("project_id", "updated_at", "id"), False),
    (
        "webhook_deliveries",
        "ix_webhook_deliveries_webhook_updated_event",
        ("webhook_id", "updated_at", "event_id"),
        False,
    ),
)

# Indexes a new one starts with: (table, index, columns), dropped.
REPLACED: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("notifications", "ix_notifications_user_created", ("user_id", "created_at")),
    ("invites", "ix_invites_workspace_id", ("workspace_id",)),
    ("email_invites", "ix_email_invites_workspace_id", ("workspace_id",)),
    ("api_keys", "ix_api_keys_project_id", ("project_id",)),
    ("audit_logs", "ix_audit_logs_project_created", ("project_id", "created_at")),
    ("folders", "ix_folders_project_parent", ("project_id", "parent_id")),
    ("webhooks", "ix_webhooks_project_id", ("project_id",)),
)


def upgrade() -> None:
    for table, name, _ in REPLACED:
        op.drop_index(name, table_name=table)
    for table, name, columns, live in INDEXES:
        where = {"sqlite_where": sa.text(LIVE), "postgresql_where": sa.text(LIVE)} if live else {}
        op.create_index(name, table, list(columns), unique=False, **where)


def downgrade() -> None:
    for table, name, _, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
    for table, name, columns in REPLACED:
        op.create_index(name, table, list(columns), unique=False)
