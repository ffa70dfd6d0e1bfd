"""merge the branches of issue 27 (events, calendar feeds, ...)

Revision ID: 0019_merge_integrations
Revises: 0018_events, 0018_calendar_feeds, 0018_sync_indexes
Create Date: 2026-11-27 10:00:00
"""

from collections.abc import Sequence

revision: str = "0019_merge_integrations"
down_revision: str | Sequence[str] | None = (
    "0018_events",
    "0018_calendar_feeds",
    "0018_sync_indexes",
)
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
