"""work-order cost totals on the issue: issues.costs, filled in for every work order

Revision ID: 0025_work_order_costs
Revises: 0024_merge_heads
Create Date: 2026-11-28 09:00:00
"""

from collections.abc import Sequence
from decimal import Decimal

import sqlalchemy as sa
from alembic import op

revision: str = "0025_work_order_costs"
down_revision: str | Sequence[str] | None = "0024_merge_heads"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CENT = Decimal("0.01")
NAMES = {"PART": "parts", "LABOUR": "labour", "OTHER": "other"}
ISSUES = sa.table("issues", sa.column("id"), sa.column("issue_kind"), sa.column("costs", sa.JSON()))
COSTS = sa.table(
    "om_work_order_costs", sa.column("work_order_id"), sa.column("kind"), sa.column("amount")
)


def _totals(sums: dict[str, Decimal]) -> dict[str, str]:
    """The totals as om.costs writes them (each line's amount is cents already)."""
    totals = {name: sums.get(name, Decimal(0)) for name in NAMES.values()}
    totals["total"] = sum(totals.values(), Decimal(0))
    return {name: str(value.quantize(CENT)) for name, value in totals.items()}


def upgrade() -> None:
    op.add_column("issues", sa.Column("costs", sa.JSON(), nullable=True))
    bind = op.get_bind()
    work_orders = ISSUES.c.issue_kind.in_(("WORK_ORDER", "OCCUPANT"))
    bind.execute(ISSUES.update().where(work_orders).values(costs=_totals({})))
    sums: dict[str, dict[str, Decimal]] = {}
    lines = sa.select(COSTS.c.work_order_id, COSTS.c.kind, COSTS.c.amount)
    for order, kind, amount in bind.execute(lines):
        by_kind = sums.setdefault(order, {})
        by_kind[NAMES[kind]] = by_kind.get(NAMES[kind], Decimal(0)) + Decimal(str(amount))
    for order, by_kind in sums.items():
        bind.execute(ISSUES.update().where(ISSUES.c.id == order).values(costs=_totals(by_kind)))


def downgrade() -> None:
    # Not a batch migration: SQLite (3.35+) drops a column in place, so the issues' FTS triggers
    # (kit/search) stay.
    op.execute("ALTER TABLE issues DROP COLUMN costs")
