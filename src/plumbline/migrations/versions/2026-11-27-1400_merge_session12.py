"""merge the branches of issues 28-31 (search, list indexes, scheduler leases, ...)

Revision ID: 0024_merge_heads
Revises: 0023_search, 0023_scheduler_leases, 0023_list_indexes, 0023_maintenance_cost,
    0023_sso
Create Date: 2026-11-27 14:00:00
"""

from collections.abc import Sequence

revision: str = "0024_merge_heads"
down_revision: str | Sequence[str] | None = (
    "0023_search",
    "0023_scheduler_leases",
    "0023_list_indexes",
    "0023_maintenance_cost",
    "0023_sso",
)
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
