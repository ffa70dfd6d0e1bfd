"""The ``proposal_templates`` table: a workspace's reusable proposals."""

from decimal import Decimal

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, TimestampMixin
from plumbline.models.proposal import Percent


class ProposalTemplate(IdMixin, TimestampMixin, Base):
    """A workspace's letter template with defaults for new proposals; deleted for good."""

    __tablename__ = "proposal_templates"
    __table_args__ = (
        UniqueConstraint("workspace_id", "name"),
        Index("ix_proposal_templates_workspace_id_id", "workspace_id", "id"),
        Index("ix_proposal_templates_workspace_updated_id", "workspace_id", "updated_at", "id"),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    tax_percent: Mapped[Decimal | None] = mapped_column(Percent)
    valid_days: Mapped[int | None]
    created_by: Mapped[str | None] = mapped_column(IdType)
