"""Maintenance cost tables: parts and their stock ledger, work-order cost lines, labour rates,
vendors and purchase orders, asset downtime.

The on-hand figure of a part at a location is ``om_stock_levels.on_hand``, changed only in the
statement that writes its ledger row (``om_stock_moves``), so it always equals the ledger's sum;
a consumption is a conditional update (``on_hand >= quantity``), which is what lets exactly one
of two concurrent consumptions of the last units win."""

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Index, Numeric, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, ProjectRecordMixin

# Quantities and rates keep 4 decimals, amounts 2 (PRODUCT §1 Money).
Qty = Numeric(18, 4)
Rate = Numeric(16, 4)
Amount = Numeric(14, 2)


class Part(IdMixin, Base):
    """A stocked part of the workspace, optionally the stocked form of a catalogue material."""

    __tablename__ = "om_parts"
    __table_args__ = (
        Index("ix_om_parts_workspace_id_id", "workspace_id", "id"),
        Index("ix_om_parts_workspace_updated_id", "workspace_id", "updated_at", "id"),
        Index(
            "uq_om_parts_workspace_sku_live",
            "workspace_id",
            "sku",
            unique=True,
            sqlite_where=text("deleted_at IS NULL AND sku IS NOT NULL"),
            postgresql_where=text("deleted_at IS NULL AND sku IS NOT NULL"),
        ),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    material_id: Mapped[str | None] = mapped_column(IdType)
    sku: Mapped[str | None] = mapped_column(String(100))
    name: Mapped[str] = mapped_column(String(200))
    unit: Mapped[str] = mapped_column(String(50))
    whole_units: Mapped[bool] = mapped_column(default=True)
    unit_cost: Mapped[Decimal] = mapped_column(Rate)
    min_quantity: Mapped[Decimal] = mapped_column(Qty, default=Decimal(0))
    reorder_quantity: Mapped[Decimal] = mapped_column(Qty, default=Decimal(0))
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]


class StockLocation(IdMixin, ProjectRecordMixin, Base):
    """Where a project keeps parts: a named store room (the project itself is one named so)."""

    __tablename__ = "om_stock_locations"
    __table_args__ = (
        Index("ix_om_stock_locations_project_id_id", "project_id", "id"),
        Index("ix_om_stock_locations_project_updated_id", "project_id", "updated_at", "id"),
    )

    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class StockLevel(IdMixin, Base):
    """A part's on-hand quantity at one location: the ledger's running sum, one row a pair."""

    __tablename__ = "om_stock_levels"
    __table_args__ = (
        UniqueConstraint("part_id", "location_id"),
        Index("ix_om_stock_levels_project_id_id", "project_id", "id"),
        Index("ix_om_stock_levels_project_updated_id", "project_id", "updated_at", "id"),
    )

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(IdType)
    part_id: Mapped[str] = mapped_column(IdType, ForeignKey("om_parts.id", ondelete="CASCADE"))
    location_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("om_stock_locations.id", ondelete="CASCADE")
    )
    on_hand: Mapped[Decimal] = mapped_column(Qty, default=Decimal(0))
    # set when the level fell below the part's minimum and the managers were told; cleared
    # when it is back at or above it (one notice per dip)
    low_since: Mapped[datetime | None]
    updated_at: Mapped[datetime]


class StockMove(IdMixin, Base):
    """One ledger entry: a signed quantity of a part at a location, and why."""

    __tablename__ = "om_stock_moves"
    __table_args__ = (
        Index("ix_om_stock_moves_project_id_id", "project_id", "id"),
        Index("ix_om_stock_moves_project_created_id", "project_id", "created_at", "id"),
        Index("ix_om_stock_moves_part_location", "part_id", "location_id"),
    )

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(IdType)
    part_id: Mapped[str] = mapped_column(IdType, ForeignKey("om_parts.id", ondelete="CASCADE"))
    location_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("om_stock_locations.id", ondelete="CASCADE")
    )
    kind: Mapped[str] = mapped_column(String(20))
    quantity: Mapped[Decimal] = mapped_column(Qty)
    balance_after: Mapped[Decimal] = mapped_column(Qty)
    unit_cost: Mapped[Decimal | None] = mapped_column(Rate)
    reason: Mapped[str | None] = mapped_column(String(500))
    work_order_id: Mapped[str | None] = mapped_column(IdType)
    cost_id: Mapped[str | None] = mapped_column(IdType)
    purchase_order_id: Mapped[str | None] = mapped_column(IdType)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]


class WorkOrderCost(IdMixin, Base):
    """A cost line of a work order: a part used, a labour entry (a running timer while
    ``running``), or another cost (contractor, travel, other)."""

    __tablename__ = "om_work_order_costs"
    __table_args__ = (
        Index("ix_om_work_order_costs_project_id_id", "project_id", "id"),
        Index("ix_om_work_order_costs_project_updated_id", "project_id", "updated_at", "id"),
        Index("ix_om_work_order_costs_work_order", "work_order_id"),
        # the reliability report and the dashboard sum a window of a project's costs
        Index("ix_om_work_order_costs_project_incurred", "project_id", "incurred_at"),
        # a person's labour entries by time, in the workspace (no two overlap)
        Index("ix_om_work_order_costs_person_started", "workspace_id", "user_id", "started_at"),
        # one running timer per person
        Index(
            "uq_om_work_order_costs_running",
            "user_id",
            unique=True,
            sqlite_where=text("running"),
            postgresql_where=text("running"),
        ),
    )

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(IdType)
    work_order_id: Mapped[str] = mapped_column(IdType, ForeignKey("issues.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10))
    category: Mapped[str | None] = mapped_column(String(20))
    description: Mapped[str | None] = mapped_column(String(500))
    part_id: Mapped[str | None] = mapped_column(IdType)
    location_id: Mapped[str | None] = mapped_column(IdType)
    quantity: Mapped[Decimal | None] = mapped_column(Qty)
    unit_cost: Mapped[Decimal | None] = mapped_column(Rate)
    user_id: Mapped[str | None] = mapped_column(IdType)
    started_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]
    minutes: Mapped[int | None]
    hourly_rate: Mapped[Decimal | None] = mapped_column(Rate)
    running: Mapped[bool] = mapped_column(default=False)
    amount: Mapped[Decimal] = mapped_column(Amount)
    incurred_at: Mapped[datetime]
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class LabourRate(Base):
    """A workspace member's hourly rate, used for their labour entries when none is given."""

    __tablename__ = "om_labour_rates"

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(IdType, primary_key=True)
    hourly_rate: Mapped[Decimal] = mapped_column(Rate)
    updated_at: Mapped[datetime]


class Vendor(IdMixin, Base):
    """A supplier of the workspace, to whom purchase orders are sent."""

    __tablename__ = "om_vendors"
    __table_args__ = (
        Index("ix_om_vendors_workspace_id_id", "workspace_id", "id"),
        Index("ix_om_vendors_workspace_updated_id", "workspace_id", "updated_at", "id"),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(200))
    contact_name: Mapped[str | None] = mapped_column(String(200))
    email: Mapped[str | None] = mapped_column(String(320))
    phone: Mapped[str | None] = mapped_column(String(50))
    address: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]


class PurchaseOrder(IdMixin, ProjectRecordMixin, Base):
    """A project's order of parts from a vendor, received into one stock location."""

    __tablename__ = "om_purchase_orders"
    __table_args__ = (
        UniqueConstraint("project_id", "number"),
        Index("ix_om_purchase_orders_project_id_id", "project_id", "id"),
        Index("ix_om_purchase_orders_project_updated_id", "project_id", "updated_at", "id"),
    )

    number: Mapped[int]
    vendor_id: Mapped[str] = mapped_column(IdType, ForeignKey("om_vendors.id"))
    location_id: Mapped[str] = mapped_column(IdType, ForeignKey("om_stock_locations.id"))
    status: Mapped[str] = mapped_column(String(20), default="DRAFT")
    currency: Mapped[str] = mapped_column(String(3))
    notes: Mapped[str | None] = mapped_column(Text)
    total: Mapped[Decimal] = mapped_column(Amount)
    approved_by: Mapped[str | None] = mapped_column(IdType)
    approved_at: Mapped[datetime | None]
    ordered_at: Mapped[datetime | None]
    received_at: Mapped[datetime | None]
    cancelled_at: Mapped[datetime | None]
    emailed_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class PurchaseOrderLine(IdMixin, Base):
    __tablename__ = "om_purchase_order_lines"
    __table_args__ = (Index("ix_om_purchase_order_lines_order", "purchase_order_id", "position"),)

    purchase_order_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("om_purchase_orders.id", ondelete="CASCADE")
    )
    part_id: Mapped[str] = mapped_column(IdType, ForeignKey("om_parts.id"))
    position: Mapped[int]
    quantity: Mapped[Decimal] = mapped_column(Qty)
    unit_cost: Mapped[Decimal] = mapped_column(Rate)
    amount: Mapped[Decimal] = mapped_column(Amount)
    received_quantity: Mapped[Decimal] = mapped_column(Qty, default=Decimal(0))


class Downtime(IdMixin, ProjectRecordMixin, Base):
    """An interval an asset was OFFLINE (planned or not); ONLINE is every time outside them.
    Open (``ended_at`` None) while the asset is still down: at most one per asset."""

    __tablename__ = "om_downtime"
    __table_args__ = (
        Index("ix_om_downtime_project_id_id", "project_id", "id"),
        Index("ix_om_downtime_project_updated_id", "project_id", "updated_at", "id"),
        Index("ix_om_downtime_asset_started", "asset_id", "started_at"),
        Index(
            "uq_om_downtime_asset_open",
            "asset_id",
            unique=True,
            sqlite_where=text("ended_at IS NULL AND deleted_at IS NULL"),
            postgresql_where=text("ended_at IS NULL AND deleted_at IS NULL"),
        ),
    )

    asset_id: Mapped[str] = mapped_column(IdType, ForeignKey("assets.id", ondelete="CASCADE"))
    planned: Mapped[bool] = mapped_column(default=False)
    reason: Mapped[str | None] = mapped_column(String(500))
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]
    work_order_id: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
