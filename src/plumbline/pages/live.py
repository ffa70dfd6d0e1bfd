"""``/app/live`` and ``/app/projects/{projectId}/live``: one Server-Sent Events stream per tab,
with the person's "a notification arrived" and, in a project, the project's changes
(``events/live.py`` says what a message holds)."""

from __future__ import annotations

from fastapi.responses import StreamingResponse

from plumbline.auth.deps import CurrentUser
from plumbline.events import live
from plumbline.pages.projects import ProjectPage
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)
HEADERS = {"Cache-Control": "no-store, no-transform", "X-Accel-Buffering": "no"}


@router.get("/app/live")
async def live_for_person(principal: CurrentUser) -> StreamingResponse:
    """The person's notifications as they arrive (a tab outside any project)."""
    user_id = principal.require_user().id
    return StreamingResponse(live.stream(user_id), media_type="text/event-stream", headers=HEADERS)


@router.get("/app/projects/{projectId}/live")
async def live_changes(ctx: ProjectPage) -> StreamingResponse:
    """The project's changes as they are committed, and the person's notifications."""
    stream = live.stream(ctx.principal.require_user().id, ctx.project.id)
    return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)
