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


class SchedulerLease(Base):
    """Who runs a daily task now, and the last UTC day it was run to completion: the scheduler
    of any server takes the row (an atomic conditional update) before running the task, renews
    it while it runs, and several servers with ``PLUMBLINE_SCHEDULER=on`` run it once a day."""

    __tablename__ = "scheduler_leases"

    name: Mapped[str] = mapped_column(String(80), primary_key=True)
    holder: Mapped[str | None] = mapped_column(String(80))
    expires_at: Mapped[datetime | None]
    done_day: Mapped[date | None]
    updated_at: Mapped[datetime]
