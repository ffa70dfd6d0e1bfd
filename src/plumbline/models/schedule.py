"""A project's schedule and its tasks."""

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Integer, SmallInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdType, JSONType


class Schedule(Base):
    """A project's schedule header: the row every replacement locks (upserts), so two
    concurrent replacements take turns; ``version`` counts them."""

    __tablename__ = "schedules"

    project_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime]
    updated_by: Mapped[str | None] = mapped_column(IdType)


class ScheduleTask(Base):
    """One task of a project's schedule; ``id`` is the client's, unique within the project.
    ``dependencies`` are stored whole: ``[{taskId, type, lagDays}]``."""

    __tablename__ = "schedule_tasks"

    project_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(500))
    start_date: Mapped[datetime]
    end_date: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(20))
    progress_percent: Mapped[int] = mapped_column(SmallInteger)
    parent_id: Mapped[str | None] = mapped_column(String(64))
    is_milestone: Mapped[bool]
    assignee_id: Mapped[str | None] = mapped_column(IdType)
    dependencies: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
