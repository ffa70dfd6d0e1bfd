"""The ``digest_runs`` table: one row per digest sent to a workspace on a day."""

from datetime import date, datetime

from sqlalchemy import String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType


class DigestRun(IdMixin, Base):
    """One digest of one kind sent to one workspace on one UTC day: written in the transaction
    that queues its e-mails, so a repeated or concurrent run finds it and sends nothing."""

    __tablename__ = "digest_runs"
    __table_args__ = (UniqueConstraint("workspace_id", "kind", "day"),)

    workspace_id: Mapped[str] = mapped_column(IdType)
    kind: Mapped[str] = mapped_column(String(40))
    day: Mapped[date]
    members: Mapped[int]
    created_at: Mapped[datetime]
