"""O&M tables: assets and meter readings, maintenance schedules, work orders, completions.

Completions are kept for the compliance figures.
"""

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import ForeignKey, Index, Numeric, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType, ProjectRecordMixin
from plumbline.kit import search

# Meter values: up to 14 integer digits and 4 decimals (hour meters, kWh, litres, degrees).
MeterValue = Numeric(18, 4)


class Asset(IdMixin, ProjectRecordMixin, Base):
    """A maintained thing (air handler, pump, lift); soft-deleted so history keeps its name.

    ``meters`` are the meters it has, stored whole: ``[{type, unit, cumulative, lastReading,
    lastReadingAt}]`` (the readings themselves are rows of ``asset_meter_readings``)."""

    __tablename__ = "assets"
    __table_args__ = (
        Index("ix_assets_project_id_id", "project_id", "id"),
        Index("ix_assets_project_updated_id", "project_id", "updated_at", "id"),
        *search.indexes("assets", "tag", "name", "serial_number", "model", "manufacturer"),
        # tag unique per project among live assets (a deleted asset's tag may be reused)
        Index(
            "uq_assets_project_tag_live",
            "project_id",
            "tag",
            unique=True,
            sqlite_where=text("deleted_at IS NULL"),
            postgresql_where=text("deleted_at IS NULL"),
        ),
        # the caller's key, unique among the project's live assets that have one
        Index(
            "uq_assets_project_external_id_live",
            "project_id",
            "external_id",
            unique=True,
            sqlite_where=text("deleted_at IS NULL AND external_id IS NOT NULL"),
            postgresql_where=text("deleted_at IS NULL AND external_id IS NOT NULL"),
        ),
    )

    tag: Mapped[str] = mapped_column(String(100))
    external_id: Mapped[str | None] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(200))
    category: Mapped[str | None] = mapped_column(String(100))
    manufacturer: Mapped[str | None] = mapped_column(String(200))
    model: Mapped[str | None] = mapped_column(String(200))
    serial_number: Mapped[str | None] = mapped_column(String(200))
    location: Mapped[str | None] = mapped_column(String(500))
    install_date: Mapped[date | None]
    warranty_expires: Mapped[date | None]
    parent_asset_id: Mapped[str | None] = mapped_column(IdType)
    status: Mapped[str] = mapped_column(String(20), default="ACTIVE")
    meters: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class MeterReading(IdMixin, Base):
    """One reading of one of an asset's meters: the history behind ``lastReading``."""

    __tablename__ = "asset_meter_readings"
    __table_args__ = (
        Index("ix_asset_meter_readings_asset", "asset_id", "meter_type", "read_at"),
        Index("ix_asset_meter_readings_asset_id_id", "asset_id", "id"),
        Index("ix_asset_meter_readings_asset_created_id", "asset_id", "created_at", "id"),
    )

    asset_id: Mapped[str] = mapped_column(IdType, ForeignKey("assets.id", ondelete="CASCADE"))
    project_id: Mapped[str] = mapped_column(IdType)
    meter_type: Mapped[str] = mapped_column(String(50))
    value: Mapped[Decimal] = mapped_column(MeterValue)
    read_at: Mapped[datetime]
    recorded_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]


class MaintenanceSchedule(IdMixin, Base):
    """A preventive-maintenance plan for one asset.

    ``next_due_at`` is the calendar due; ``anchor_day`` the day of the month a FIXED schedule
    returns to (31 Jan, 28 Feb, 31 Mar). A meter schedule also has ``meter_due_at``: when a
    reading met its condition since the last completion (``meter_baseline`` is the reading then);
    it is due at whichever comes first."""

    __tablename__ = "maintenance_schedules"
    __table_args__ = (
        Index("ix_maintenance_schedules_project_id_id", "project_id", "id"),
        Index("ix_maintenance_schedules_project_updated_id", "project_id", "updated_at", "id"),
    )

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(IdType)
    asset_id: Mapped[str] = mapped_column(IdType, ForeignKey("assets.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(500))
    description: Mapped[str | None] = mapped_column(Text)
    frequency: Mapped[str] = mapped_column(String(20))
    interval_days: Mapped[int | None]
    basis: Mapped[str] = mapped_column(String(10), default="FLOATING")
    anchor_day: Mapped[int]
    next_due_at: Mapped[datetime]
    last_completed_at: Mapped[datetime | None]
    assignee_id: Mapped[str | None] = mapped_column(IdType)
    priority: Mapped[str] = mapped_column(String(10), default="MEDIUM")
    meter_type: Mapped[str | None] = mapped_column(String(50))
    meter_interval: Mapped[Decimal | None] = mapped_column(MeterValue)
    meter_threshold: Mapped[Decimal | None] = mapped_column(MeterValue)
    meter_baseline: Mapped[Decimal | None] = mapped_column(MeterValue)
    meter_due_at: Mapped[datetime | None]
    checklist: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    is_active: Mapped[bool] = mapped_column(default=True)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class MaintenanceWorkOrder(IdMixin, Base):
    """The work order generated for one schedule and one due date: the unique pair is what makes
    generating idempotent under concurrent calls (no check-then-insert)."""

    __tablename__ = "maintenance_work_orders"
    __table_args__ = (UniqueConstraint("schedule_id", "due_at"),)

    schedule_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("maintenance_schedules.id", ondelete="CASCADE")
    )
    project_id: Mapped[str] = mapped_column(IdType)
    due_at: Mapped[datetime]
    issue_id: Mapped[str] = mapped_column(IdType, index=True)
    created_at: Mapped[datetime]


class MaintenanceCompletion(IdMixin, Base):
    """A schedule's completion: who, when, the due date it met and whether on time. One per
    work order, so resolving, reopening and resolving again completes once."""

    __tablename__ = "maintenance_completions"
    __table_args__ = (
        Index("ix_maintenance_completions_schedule", "schedule_id", "completed_at"),
        UniqueConstraint("work_order_id"),
    )

    schedule_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("maintenance_schedules.id", ondelete="CASCADE")
    )
    project_id: Mapped[str] = mapped_column(IdType)
    workspace_id: Mapped[str] = mapped_column(IdType)
    work_order_id: Mapped[str | None] = mapped_column(IdType)
    due_at: Mapped[datetime]
    completed_at: Mapped[datetime]
    completed_by: Mapped[str | None] = mapped_column(IdType)
    on_time: Mapped[bool]
    notes: Mapped[str | None] = mapped_column(Text)
    meter_reading: Mapped[Decimal | None] = mapped_column(MeterValue)
    created_at: Mapped[datetime]
