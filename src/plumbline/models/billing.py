"""The ``billing_events`` table: processor events, each applied once."""

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdType


class BillingEvent(Base):
    """A payment processor event, recorded in the transaction that applied it, so a replay
    (same event id) changes nothing."""

    __tablename__ = "billing_events"

    event_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    type: Mapped[str] = mapped_column(String(100))
    workspace_id: Mapped[str | None] = mapped_column(IdType)
    outcome: Mapped[str] = mapped_column(String(20))
    received_at: Mapped[datetime]
