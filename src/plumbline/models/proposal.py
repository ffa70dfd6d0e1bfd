"""The ``proposals`` table."""

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Index, LargeBinary, Numeric, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType, ProjectRecordMixin, TimestampMixin
from plumbline.kit import search

# Money: 12 integer digits and cents; percentages: 0-100 with up to 4 decimals.
Money = Numeric(14, 2)
Percent = Numeric(7, 4)


class Proposal(IdMixin, ProjectRecordMixin, TimestampMixin, Base):
    """A priced offer to a client; ``items`` are stored whole (decimals as strings)."""

    __tablename__ = "proposals"
    __table_args__ = (
        Index("ix_proposals_project_id_id", "project_id", "id"),
        Index("ix_proposals_project_updated_id", "project_id", "updated_at", "id"),
        *search.indexes(
            "proposals", "title", "reference", "client_name", "client_company", "client_email"
        ),
    )

    reference: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(20), default="DRAFT")
    client_name: Mapped[str | None] = mapped_column(String(200))
    client_email: Mapped[str | None] = mapped_column(String(400))
    client_company: Mapped[str | None] = mapped_column(String(200))
    valid_until: Mapped[datetime]
    currency: Mapped[str] = mapped_column(String(3))
    cover_letter: Mapped[str | None] = mapped_column(Text)
    items: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    subtotal: Mapped[Decimal] = mapped_column(Money)
    work_price_percent: Mapped[Decimal] = mapped_column(Percent)
    work_amount: Mapped[Decimal] = mapped_column(Money)
    tax_percent: Mapped[Decimal] = mapped_column(Percent)
    tax_amount: Mapped[Decimal] = mapped_column(Money)
    discount: Mapped[Decimal] = mapped_column(Money)
    total: Mapped[Decimal] = mapped_column(Money)
    sent_at: Mapped[datetime | None]
    viewed_at: Mapped[datetime | None]
    accepted_at: Mapped[datetime | None]
    signer_name: Mapped[str | None] = mapped_column(String(200))
    declined_at: Mapped[datetime | None]
    decline_reason: Mapped[str | None] = mapped_column(String(20))
    decline_comment: Mapped[str | None] = mapped_column(Text)
    change_request_comment: Mapped[str | None] = mapped_column(Text)
    # The portal: only the SHA-256 of the client's link token; a new send replaces it.
    token_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    sent_by: Mapped[str | None] = mapped_column(IdType)
    # The accepted client's signature (a checked PNG), read only for the PDF.
    signature_png: Mapped[bytes | None] = mapped_column(
        LargeBinary, deferred=True, deferred_raiseload=True
    )
