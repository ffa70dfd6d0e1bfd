"""``/projects/{projectId}/schedule``: read, replace and export."""

from collections.abc import AsyncIterator

from fastapi.responses import StreamingResponse

from plumbline.db import DB
from plumbline.kit.responses import ORJSONResponse
from plumbline.records.export import csv_response
from plumbline.routing import make_router
from plumbline.schedule.auth import CanReadSchedule, CanWriteSchedule
from plumbline.schedule.schemas import ScheduleIn, ScheduleRead
from plumbline.schedule.service import schedule as schedule_service

router = make_router(prefix="/projects/{projectId}/schedule", tags=["schedule"])


@router.get("", response_model=ScheduleRead)
async def get_schedule(ctx: CanReadSchedule, db: DB) -> ORJSONResponse:
    """The project's schedule: its tasks in order (none yet: an empty list, version 0)."""
    return ORJSONResponse(await schedule_service.get(db, ctx))


@router.put("", response_model=ScheduleRead, responses={413: {"description": "Body over 4 MiB"}})
async def replace_schedule(ctx: CanWriteSchedule, db: DB, body: ScheduleIn) -> ORJSONResponse:
    """Replace the whole schedule (at most 5,000 tasks) and answer it."""
    return ORJSONResponse(await schedule_service.replace(db, ctx, body))


@router.get(
    "/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, one row per task"}},
)
async def export_schedule(ctx: CanReadSchedule, db: DB) -> StreamingResponse:
    """Export the schedule as CSV, in task order."""
    body = await schedule_service.export_csv(db, ctx)

    async def once() -> AsyncIterator[bytes]:
        yield body

    return csv_response(once(), "schedule.csv")
