"""merge the domain branches into one head

Revision ID: 0006_merge_heads
Revises: 0002_files, 0003_issues, 0004_rfis, 0005_punch_field_reports
Create Date: 2026-11-21 10:00:00
"""

from collections.abc import Sequence

revision: str = "0006_merge_heads"
down_revision: str | Sequence[str] | None = (
    "0002_files",
    "0003_issues",
    "0004_rfis",
    "0005_punch_field_reports",
)
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
