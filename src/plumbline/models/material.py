"""The ``materials`` table: a workspace's catalogue."""

from decimal import Decimal

from sqlalchemy import ForeignKey, Index, Numeric, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, TimestampMixin
from plumbline.kit import search


class Material(IdMixin, TimestampMixin, Base):
    """A workspace's catalogue entry: what proposal line items can be priced from."""

    __tablename__ = "materials"
    __table_args__ = (
        UniqueConstraint("workspace_id", "sku"),
        UniqueConstraint("workspace_id", "external_id"),  # the caller's key, when it has one
        Index("ix_materials_workspace_id_id", "workspace_id", "id"),
        Index("ix_materials_workspace_updated_id", "workspace_id", "updated_at", "id"),
        *search.indexes("materials", "name", "sku", "supplier"),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(200))
    unit: Mapped[str] = mapped_column(String(50))
    unit_price: Mapped[Decimal] = mapped_column(Numeric(14, 2))
    currency: Mapped[str] = mapped_column(String(3))
    sku: Mapped[str | None] = mapped_column(String(100))
    category: Mapped[str | None] = mapped_column(String(100))
    supplier: Mapped[str | None] = mapped_column(String(200))
    external_id: Mapped[str | None] = mapped_column(String(255))
    created_by: Mapped[str | None] = mapped_column(IdType)
