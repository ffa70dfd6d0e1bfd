"""Request and response shapes of the schedule and its tasks."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, Strict, StringConstraints

from plumbline.kit.schema import Flag, Instant, Schema, Title

# A 5,000-task schedule is about 1.5 MiB of JSON: the route's body limit is 4 MiB (app.py).
MAX_TASKS = 5000
MAX_DEPENDENCIES = 50
TaskStatus = Literal["NOT_STARTED", "IN_PROGRESS", "DELAYED", "COMPLETED"]
DependencyType = Literal["FS", "SS", "FF", "SF"]
TaskId = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Percent = Annotated[int, Strict(), Field(ge=0, le=100)]
LagDays = Annotated[int, Strict(), Field(ge=-3650, le=3650)]


class DependencyIn(Schema):
    task_id: TaskId
    type: DependencyType = "FS"
    lag_days: LagDays = 0


class TaskIn(Schema):
    id: TaskId
    name: Title
    start_date: Instant
    end_date: Instant
    status: TaskStatus = "NOT_STARTED"
    progress_percent: Percent = 0
    parent_id: TaskId | None = None
    is_milestone: Flag = False
    assignee_id: str | None = Field(None, max_length=32)
    dependencies: list[DependencyIn] = Field(default_factory=list, max_length=MAX_DEPENDENCIES)


class ScheduleIn(Schema):
    """The whole schedule: it replaces the one stored."""

    tasks: list[TaskIn] = Field(max_length=MAX_TASKS)


class DependencyRead(BaseModel):
    taskId: str
    type: DependencyType
    lagDays: int


class TaskRead(BaseModel):
    id: str
    name: str
    startDate: datetime
    endDate: datetime
    status: TaskStatus
    progressPercent: int
    parentId: str | None
    isMilestone: bool
    assigneeId: str | None
    dependencies: list[DependencyRead]


class ScheduleRead(BaseModel):
    tasks: list[TaskRead]
    version: int
    updatedAt: datetime | None
