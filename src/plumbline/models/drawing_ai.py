"""The ``sheet_results`` table: what the drawing AI computed for a page."""

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType


class SheetResult(IdMixin, Base):
    """What the drawing AI computed for one page of one file version: kind "summary" or
    "takeoff" (every category), computed once and read back from here after."""

    __tablename__ = "sheet_results"
    __table_args__ = (
        UniqueConstraint("file_version_id", "page_index", "kind", name="uq_sheet_results_page"),
    )

    file_version_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("file_versions.id", ondelete="CASCADE")
    )
    project_id: Mapped[str] = mapped_column(IdType)
    workspace_id: Mapped[str] = mapped_column(IdType)
    page_index: Mapped[int]
    kind: Mapped[str] = mapped_column(String(20))
    result: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
