"""The project schedule: read whole, replaced whole (atomically), exported as CSV."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.authz.project import ProjectContext
from plumbline.events.readers import reader
from plumbline.kit import clock
from plumbline.kit.clock import iso
from plumbline.kit.export import csv_cell
from plumbline.records import repository as records_repo
from plumbline.records.export import csv_bytes
from plumbline.records.visibility import Visibility
from plumbline.schedule import repository as repo
from plumbline.schedule.errors import ScheduleHiddenFromClients
from plumbline.schedule.schemas import ScheduleIn, TaskIn, TaskRead
from plumbline.schedule.validation import check, check_assignees

ENTITY = "schedule"
# The columns of the CSV export: the fields of a task as the API reads it.
CSV_HEADER = tuple(TaskRead.model_fields)
# A task's response fields and their columns.
TASK_FIELDS = {name: to_snake(name) for name in TaskRead.model_fields}


def _task(row: Mapping[Any, Any]) -> dict[str, Any]:
    task = {name: row[column] for name, column in TASK_FIELDS.items()}
    task["startDate"], task["endDate"] = iso(task["startDate"]), iso(task["endDate"])
    return task


def _stored(project_id: str, tasks: Sequence[TaskIn]) -> list[dict[str, Any]]:
    return [
        task.model_dump(exclude={"dependencies"})
        | {
            "project_id": project_id,
            "position": position,
            "dependencies": [
                {"taskId": d.task_id, "type": d.type, "lagDays": d.lag_days}
                for d in task.dependencies
            ],
        }
        for position, task in enumerate(tasks)
    ]


def _dependencies_text(dependencies: list[dict[str, Any]]) -> str:
    """``B FS+2; C SS-1``: each predecessor, its type and lag in days."""
    return "; ".join(
        f"{d['taskId']} {d['type']}{d['lagDays']:+d}"
        if d["lagDays"]
        else f"{d['taskId']} {d['type']}"
        for d in dependencies
    )


def _readable(ctx: ProjectContext) -> None:
    """403 for a CLIENT of a project that does not share its schedule (``showSchedule``);
    contractors and subcontractors read it whatever the flag: it is the timeline they work to."""
    Visibility.of(ctx, "showSchedule").collection(ScheduleHiddenFromClients)


async def _schedule(db: AsyncSession, project_id: str) -> dict[str, Any]:
    """A project's schedule: its tasks, version and last update (version 0 before any)."""
    rows = await repo.read(db, project_id)
    if not rows:
        return {"tasks": [], "version": 0, "updatedAt": None}
    return {
        "tasks": [_task(row._mapping) for row in rows if row.id is not None],
        "version": rows[0].version,
        "updatedAt": iso(rows[0].schedule_updated_at),
    }


@reader("schedule")
async def schedules_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """A schedule's id is its project's."""
    return {project_id: await _schedule(db, project_id) for project_id in ids}


class ScheduleService:
    async def get(self, db: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
        """The project's schedule: its tasks, version and last update (version 0 before any)."""
        _readable(ctx)
        return await _schedule(db, ctx.project.id)

    async def replace(
        self, db: AsyncSession, ctx: ProjectContext, data: ScheduleIn
    ) -> dict[str, Any]:
        """Checked whole first, then written in the request's transaction after taking the
        project's schedule lock: a concurrent replacement waits, then replaces this one."""
        check(data.tasks)
        assignees = list({t.assignee_id for t in data.tasks if t.assignee_id is not None})
        if assignees:
            check_assignees(data.tasks, set(await records_repo.assignable(db, ctx, assignees)))
        now = clock.now()
        version = await repo.take(db, ctx.project.id, now, ctx.user_id)
        rows = _stored(ctx.project.id, data.tasks)
        removed = await repo.replace(db, ctx.project.id, rows)
        changes = {"tasks": [removed, len(rows)], "version": [version - 1, version]}
        await audit_change(db, ctx, (ENTITY, ctx.project.id), "schedule.replaced", changes)
        return {
            "tasks": [_task(row) for row in rows],
            "version": version,
            "updatedAt": iso(now),
        }

    async def export_csv(self, db: AsyncSession, ctx: ProjectContext) -> bytes:
        """Read in one statement (a schedule is replaced whole: batches could mix two)."""
        _readable(ctx)
        rows = [row for row in await repo.read(db, ctx.project.id) if row.id is not None]
        lines = [
            (
                csv_cell(row.id),
                csv_cell(row.name),
                iso(row.start_date),
                iso(row.end_date),
                row.status,
                row.progress_percent,
                csv_cell(row.parent_id),
                "true" if row.is_milestone else "false",
                row.assignee_id or "",
                csv_cell(_dependencies_text(row.dependencies)),
            )
            for row in rows
        ]
        return csv_bytes([CSV_HEADER, *lines])


schedule = ScheduleService()
