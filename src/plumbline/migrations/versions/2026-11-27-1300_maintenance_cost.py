"""maintenance cost: parts, stock ledger, work-order costs, vendors, purchase orders, downtime

Revision ID: 0023_maintenance_cost
Revises: 0022_webhooks
Create Date: 2026-11-27 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import plumbline.db

revision: str = "0023_maintenance_cost"
down_revision: str | Sequence[str] | None = "0022_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "om_labour_rates",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=32), nullable=False),
        sa.Column("hourly_rate", sa.Numeric(precision=16, scale=4), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_om_labour_rates_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("workspace_id", "user_id", name=op.f("pk_om_labour_rates")),
    )
    op.create_table(
        "om_parts",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("material_id", sa.String(length=32), nullable=True),
        sa.Column("sku", sa.String(length=100), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("unit", sa.String(length=50), nullable=False),
        sa.Column("whole_units", sa.Boolean(), nullable=False),
        sa.Column("unit_cost", sa.Numeric(precision=16, scale=4), nullable=False),
        sa.Column("min_quantity", sa.Numeric(precision=18, scale=4), nullable=False),
        sa.Column("reorder_quantity", sa.Numeric(precision=18, scale=4), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_om_parts_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_parts")),
    )
    with op.batch_alter_table("om_parts", schema=None) as batch_op:
        batch_op.create_index("ix_om_parts_workspace_id_id", ["workspace_id", "id"], unique=False)
        batch_op.create_index(
            "ix_om_parts_workspace_updated_id", ["workspace_id", "updated_at", "id"], unique=False
        )
        batch_op.create_index(
            "uq_om_parts_workspace_sku_live",
            ["workspace_id", "sku"],
            unique=True,
            sqlite_where=sa.text("deleted_at IS NULL AND sku IS NOT NULL"),
            postgresql_where=sa.text("deleted_at IS NULL AND sku IS NOT NULL"),
        )

    op.create_table(
        "om_vendors",
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("contact_name", sa.String(length=200), nullable=True),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("phone", sa.String(length=50), nullable=True),
        sa.Column("address", sa.Text(), nullable=True),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_om_vendors_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_vendors")),
    )
    with op.batch_alter_table("om_vendors", schema=None) as batch_op:
        batch_op.create_index("ix_om_vendors_workspace_id_id", ["workspace_id", "id"], unique=False)
        batch_op.create_index(
            "ix_om_vendors_workspace_updated_id", ["workspace_id", "updated_at", "id"], unique=False
        )

    op.create_table(
        "om_stock_locations",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_om_stock_locations_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_stock_locations")),
    )
    with op.batch_alter_table("om_stock_locations", schema=None) as batch_op:
        batch_op.create_index(
            "ix_om_stock_locations_project_id_id", ["project_id", "id"], unique=False
        )
        batch_op.create_index(
            "ix_om_stock_locations_project_updated_id",
            ["project_id", "updated_at", "id"],
            unique=False,
        )

    op.create_table(
        "om_downtime",
        sa.Column("asset_id", sa.String(length=32), nullable=False),
        sa.Column("planned", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=True),
        sa.Column("started_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("ended_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("work_order_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["asset_id"],
            ["assets.id"],
            name=op.f("fk_om_downtime_asset_id_assets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_om_downtime_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_downtime")),
    )
    with op.batch_alter_table("om_downtime", schema=None) as batch_op:
        batch_op.create_index(
            "ix_om_downtime_asset_started", ["asset_id", "started_at"], unique=False
        )
        batch_op.create_index("ix_om_downtime_project_id_id", ["project_id", "id"], unique=False)
        batch_op.create_index(
            "ix_om_downtime_project_updated_id", ["project_id", "updated_at", "id"], unique=False
        )
        batch_op.create_index(
            "uq_om_downtime_asset_open",
            ["asset_id"],
            unique=True,
            sqlite_where=sa.text("ended_at IS NULL AND deleted_at IS NULL"),
            postgresql_where=sa.text("ended_at IS NULL AND deleted_at IS NULL"),
        )

    op.create_table(
        "om_purchase_orders",
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("vendor_id", sa.String(length=32), nullable=False),
        sa.Column("location_id", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("total", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("approved_by", sa.String(length=32), nullable=True),
        sa.Column("approved_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("ordered_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("received_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("cancelled_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("emailed_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("deleted_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["location_id"],
            ["om_stock_locations.id"],
            name=op.f("fk_om_purchase_orders_location_id_om_stock_locations"),
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_om_purchase_orders_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["vendor_id"],
            ["om_vendors.id"],
            name=op.f("fk_om_purchase_orders_vendor_id_om_vendors"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_purchase_orders")),
        sa.UniqueConstraint(
            "project_id", "number", name=op.f("uq_om_purchase_orders_project_id_number")
        ),
    )
    with op.batch_alter_table("om_purchase_orders", schema=None) as batch_op:
        batch_op.create_index(
            "ix_om_purchase_orders_project_id_id", ["project_id", "id"], unique=False
        )
        batch_op.create_index(
            "ix_om_purchase_orders_project_updated_id",
            ["project_id", "updated_at", "id"],
            unique=False,
        )

    op.create_table(
        "om_stock_levels",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("part_id", sa.String(length=32), nullable=False),
        sa.Column("location_id", sa.String(length=32), nullable=False),
        sa.Column("on_hand", sa.Numeric(precision=18, scale=4), nullable=False),
        sa.Column("low_since", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["location_id"],
            ["om_stock_locations.id"],
            name=op.f("fk_om_stock_levels_location_id_om_stock_locations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["part_id"],
            ["om_parts.id"],
            name=op.f("fk_om_stock_levels_part_id_om_parts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_om_stock_levels_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_stock_levels")),
        sa.UniqueConstraint(
            "part_id", "location_id", name=op.f("uq_om_stock_levels_part_id_location_id")
        ),
    )
    with op.batch_alter_table("om_stock_levels", schema=None) as batch_op:
        batch_op.create_index(
            "ix_om_stock_levels_project_id_id", ["project_id", "id"], unique=False
        )
        batch_op.create_index(
            "ix_om_stock_levels_project_updated_id",
            ["project_id", "updated_at", "id"],
            unique=False,
        )

    op.create_table(
        "om_stock_moves",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("part_id", sa.String(length=32), nullable=False),
        sa.Column("location_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("quantity", sa.Numeric(precision=18, scale=4), nullable=False),
        sa.Column("balance_after", sa.Numeric(precision=18, scale=4), nullable=False),
        sa.Column("unit_cost", sa.Numeric(precision=16, scale=4), nullable=True),
        sa.Column("reason", sa.String(length=500), nullable=True),
        sa.Column("work_order_id", sa.String(length=32), nullable=True),
        sa.Column("cost_id", sa.String(length=32), nullable=True),
        sa.Column("purchase_order_id", sa.String(length=32), nullable=True),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["location_id"],
            ["om_stock_locations.id"],
            name=op.f("fk_om_stock_moves_location_id_om_stock_locations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["part_id"],
            ["om_parts.id"],
            name=op.f("fk_om_stock_moves_part_id_om_parts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_om_stock_moves_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_stock_moves")),
    )
    with op.batch_alter_table("om_stock_moves", schema=None) as batch_op:
        batch_op.create_index(
            "ix_om_stock_moves_part_location", ["part_id", "location_id"], unique=False
        )
        batch_op.create_index(
            "ix_om_stock_moves_project_created_id", ["project_id", "created_at", "id"], unique=False
        )
        batch_op.create_index("ix_om_stock_moves_project_id_id", ["project_id", "id"], unique=False)

    op.create_table(
        "om_work_order_costs",
        sa.Column("project_id", sa.String(length=32), nullable=False),
        sa.Column("workspace_id", sa.String(length=32), nullable=False),
        sa.Column("work_order_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("category", sa.String(length=20), nullable=True),
        sa.Column("description", sa.String(length=500), nullable=True),
        sa.Column("part_id", sa.String(length=32), nullable=True),
        sa.Column("location_id", sa.String(length=32), nullable=True),
        sa.Column("quantity", sa.Numeric(precision=18, scale=4), nullable=True),
        sa.Column("unit_cost", sa.Numeric(precision=16, scale=4), nullable=True),
        sa.Column("user_id", sa.String(length=32), nullable=True),
        sa.Column("started_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("ended_at", plumbline.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("minutes", sa.Integer(), nullable=True),
        sa.Column("hourly_rate", sa.Numeric(precision=16, scale=4), nullable=True),
        sa.Column("running", sa.Boolean(), nullable=False),
        sa.Column("amount", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("incurred_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=True),
        sa.Column("created_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", plumbline.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_om_work_order_costs_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["work_order_id"],
            ["issues.id"],
            name=op.f("fk_om_work_order_costs_work_order_id_issues"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_work_order_costs")),
    )
    with op.batch_alter_table("om_work_order_costs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_om_work_order_costs_project_id_id", ["project_id", "id"], unique=False
        )
        batch_op.create_index(
            "ix_om_work_order_costs_project_updated_id",
            ["project_id", "updated_at", "id"],
            unique=False,
        )
        batch_op.create_index("ix_om_work_order_costs_work_order", ["work_order_id"], unique=False)
        batch_op.create_index(
            "ix_om_work_order_costs_project_incurred", ["project_id", "incurred_at"], unique=False
        )
        batch_op.create_index(
            "uq_om_work_order_costs_running",
            ["user_id"],
            unique=True,
            sqlite_where=sa.text("running"),
            postgresql_where=sa.text("running"),
        )

    op.create_table(
        "om_purchase_order_lines",
        sa.Column("purchase_order_id", sa.String(length=32), nullable=False),
        sa.Column("part_id", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("quantity", sa.Numeric(precision=18, scale=4), nullable=False),
        sa.Column("unit_cost", sa.Numeric(precision=16, scale=4), nullable=False),
        sa.Column("amount", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("received_quantity", sa.Numeric(precision=18, scale=4), nullable=False),
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["part_id"], ["om_parts.id"], name=op.f("fk_om_purchase_order_lines_part_id_om_parts")
        ),
        sa.ForeignKeyConstraint(
            ["purchase_order_id"],
            ["om_purchase_orders.id"],
            name=op.f("fk_om_purchase_order_lines_purchase_order_id_om_purchase_orders"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_om_purchase_order_lines")),
    )
    with op.batch_alter_table("om_purchase_order_lines", schema=None) as batch_op:
        batch_op.create_index(
            "ix_om_purchase_order_lines_order", ["purchase_order_id", "position"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("om_purchase_order_lines", schema=None) as batch_op:
        batch_op.drop_index("ix_om_purchase_order_lines_order")

    op.drop_table("om_purchase_order_lines")
    with op.batch_alter_table("om_work_order_costs", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_om_work_order_costs_running",
            sqlite_where=sa.text("running"),
            postgresql_where=sa.text("running"),
        )
        batch_op.drop_index("ix_om_work_order_costs_work_order")
        batch_op.drop_index("ix_om_work_order_costs_project_incurred")
        batch_op.drop_index("ix_om_work_order_costs_project_updated_id")
        batch_op.drop_index("ix_om_work_order_costs_project_id_id")

    op.drop_table("om_work_order_costs")
    with op.batch_alter_table("om_stock_moves", schema=None) as batch_op:
        batch_op.drop_index("ix_om_stock_moves_project_id_id")
        batch_op.drop_index("ix_om_stock_moves_project_created_id")
        batch_op.drop_index("ix_om_stock_moves_part_location")

    op.drop_table("om_stock_moves")
    with op.batch_alter_table("om_stock_levels", schema=None) as batch_op:
        batch_op.drop_index("ix_om_stock_levels_project_updated_id")
        batch_op.drop_index("ix_om_stock_levels_project_id_id")

    op.drop_table("om_stock_levels")
    with op.batch_alter_table("om_purchase_orders", schema=None) as batch_op:
        batch_op.drop_index("ix_om_purchase_orders_project_updated_id")
        batch_op.drop_index("ix_om_purchase_orders_project_id_id")

    op.drop_table("om_purchase_orders")
    with op.batch_alter_table("om_downtime", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_om_downtime_asset_open",
            sqlite_where=sa.text("ended_at IS NULL AND deleted_at IS NULL"),
            postgresql_where=sa.text("ended_at IS NULL AND deleted_at IS NULL"),
        )
        batch_op.drop_index("ix_om_downtime_project_updated_id")
        batch_op.drop_index("ix_om_downtime_project_id_id")
        batch_op.drop_index("ix_om_downtime_asset_started")

    op.drop_table("om_downtime")
    with op.batch_alter_table("om_stock_locations", schema=None) as batch_op:
        batch_op.drop_index("ix_om_stock_locations_project_updated_id")
        batch_op.drop_index("ix_om_stock_locations_project_id_id")

    op.drop_table("om_stock_locations")
    with op.batch_alter_table("om_vendors", schema=None) as batch_op:
        batch_op.drop_index("ix_om_vendors_workspace_updated_id")
        batch_op.drop_index("ix_om_vendors_workspace_id_id")

    op.drop_table("om_vendors")
    with op.batch_alter_table("om_parts", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_om_parts_workspace_sku_live",
            sqlite_where=sa.text("deleted_at IS NULL AND sku IS NOT NULL"),
            postgresql_where=sa.text("deleted_at IS NULL AND sku IS NOT NULL"),
        )
        batch_op.drop_index("ix_om_parts_workspace_updated_id")
        batch_op.drop_index("ix_om_parts_workspace_id_id")

    op.drop_table("om_parts")
    op.drop_table("om_labour_rates")
