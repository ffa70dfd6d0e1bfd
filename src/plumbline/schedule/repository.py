"""Every schedule query: always one project's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from pydantic.alias_generators import to_snake
from sqlalchemy import CursorResult, Row, delete, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import Schedule, ScheduleTask
from plumbline.schedule.schemas import TaskRead

# A task's columns in the order of its response's fields.
TASK_COLUMNS = tuple(getattr(ScheduleTask, to_snake(name)) for name in TaskRead.model_fields)


async def take(db: AsyncSession, project_id: str, now: datetime, user_id: str | None) -> int:
    """Lock the project's schedule for the rest of the transaction; the new version.

    One upsert on SQLite (3.35+) and PostgreSQL: the header row's lock (SQLite's write lock)
    makes concurrent replacements of one project's schedule take turns, each deleting the
    tasks the one before it committed, so no mix of two schedules is ever left."""
    module = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    statement = module.insert(Schedule).values(
        project_id=project_id, version=1, updated_at=now, updated_by=user_id
    )
    statement = statement.on_conflict_do_update(
        index_elements=[Schedule.project_id],
        set_={
            "version": Schedule.version + 1,
            "updated_at": statement.excluded.updated_at,
            "updated_by": statement.excluded.updated_by,
        },
    ).returning(Schedule.version)
    return int((await db.execute(statement)).scalar_one())


async def replace(db: AsyncSession, project_id: str, rows: list[dict[str, Any]]) -> int:
    """Delete the project's tasks and insert ``rows`` (one executemany); the tasks deleted."""
    deleted = cast(
        CursorResult[Any],
        await db.execute(
            delete(ScheduleTask).where(ScheduleTask.project_id == project_id),
            execution_options={"synchronize_session": False},
        ),
    )
    if rows:
        await db.execute(insert(ScheduleTask), rows)
    return deleted.rowcount


async def read(db: AsyncSession, project_id: str) -> Sequence[Row[Any]]:
    """The header's version and time on every row, then the task (None when there are no
    tasks); no row at all when the project has no schedule yet. One statement: one snapshot,
    even outside a transaction."""
    query = (
        select(Schedule.version, Schedule.updated_at.label("schedule_updated_at"), *TASK_COLUMNS)
        .select_from(Schedule)
        .outerjoin(ScheduleTask, ScheduleTask.project_id == Schedule.project_id)
        .where(Schedule.project_id == project_id)
        .order_by(ScheduleTask.position)
    )
    return (await db.execute(query)).all()
