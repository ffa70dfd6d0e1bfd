"""``/app/projects/{projectId}/live``: the project's changes for an open tab (Server-Sent
Events; ``events/live.py`` says what a message holds)."""

from __future__ import annotations

from fastapi.responses import StreamingResponse

from plumbline.events import live
from plumbline.pages.projects import ProjectPage
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)
HEADERS = {"Cache-Control": "no-store, no-transform", "X-Accel-Buffering": "no"}


@router.get("/app/projects/{projectId}/live")
async def live_changes(ctx: ProjectPage) -> StreamingResponse:
    """The project's changes as they are committed, one stream per tab."""
    return StreamingResponse(
        live.stream(ctx.project.id), media_type="text/event-stream", headers=HEADERS
    )
