"""Viewer routes: version locks, saved viewer state and live co-viewing."""

from fastapi import Query
from fastapi.responses import StreamingResponse

from plumbline.db import DB, UoW
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.routing import make_router
from plumbline.viewer.auth import CanReadViewerState, CanViewVersion, CanWriteVersion
from plumbline.viewer.schemas import (
    ConnectionRef,
    Heartbeat,
    LockRead,
    ViewerStateRead,
    ViewerStateRevision,
    ViewerStateWrite,
)
from plumbline.viewer.service import collab, locks, viewer_states

router = make_router(tags=["viewer"])

SSE_HEADERS = {"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"}
SSE_DESCRIPTION = (
    "Server-Sent Events: hello {connectionId, hostUserId}; presence {members, hostUserId}; "
    "viewer_state {revision, actorUserId}; issues_changed; lock_changed {lockedBy, expiresAt}; "
    "session_ended; server_closing {reconnect} (this server stops: reconnect); ping every 25 s."
)


@router.post("/files/{fileVersionId}/lock", response_model=LockRead)
async def lock_version(
    access: CanWriteVersion,
    uow: UoW,
    force: bool = Query(False, description="MANAGER+: take over someone else's lock"),
) -> ORJSONResponse:
    """Lock a file version for 5 minutes, or renew your own lock."""
    return ORJSONResponse(await locks.acquire(uow, access, force=force))


@router.delete("/files/{fileVersionId}/lock", response_model=Ok)
async def unlock_version(access: CanWriteVersion, uow: UoW) -> ORJSONResponse:
    """Release the lock (its holder, or MANAGER+); no live lock is already released."""
    await locks.release(uow, access)
    return ORJSONResponse({"ok": True})


@router.get("/file-versions/{fileVersionId}/viewer-state", response_model=ViewerStateRead)
async def read_viewer_state(access: CanReadViewerState, db: DB) -> ORJSONResponse:
    """The version's markups and their revision (0 and {} before the first save)."""
    return ORJSONResponse(await viewer_states.read(db, access))


@router.put("/file-versions/{fileVersionId}/viewer-state", response_model=ViewerStateRevision)
async def save_viewer_state(
    body: ViewerStateWrite, access: CanWriteVersion, uow: UoW
) -> ORJSONResponse:
    """Save the markups if nobody saved since baseRevision (409 with the current state)."""
    result = await viewer_states.save(uow, access, body.viewer_state, body.base_revision)
    return ORJSONResponse(result)


@router.get(
    "/file-versions/{fileVersionId}/viewer-collab/events",
    response_class=StreamingResponse,
    responses={200: {"description": SSE_DESCRIPTION, "content": {"text/event-stream": {}}}},
)
async def collab_events(access: CanViewVersion) -> StreamingResponse:
    """Join the version's live co-viewing session as a Server-Sent Events stream."""
    body, headers = await collab.connect(access)
    return StreamingResponse(
        body, media_type="text/event-stream", headers={**SSE_HEADERS, **headers}
    )


@router.post("/file-versions/{fileVersionId}/viewer-collab/heartbeat", response_model=Ok)
async def collab_heartbeat(body: Heartbeat, access: CanViewVersion) -> ORJSONResponse:
    """Keep your connection in presence (and share the page you are on)."""
    await collab.heartbeat(access, body.connection_id, body.page_index)
    return ORJSONResponse({"ok": True})


@router.post("/file-versions/{fileVersionId}/viewer-collab/leave", response_model=Ok)
async def collab_leave(body: ConnectionRef, access: CanViewVersion) -> ORJSONResponse:
    """Leave the session; your stream for that connection ends."""
    await collab.leave(access, body.connection_id)
    return ORJSONResponse({"ok": True})


@router.post("/file-versions/{fileVersionId}/viewer-collab/end-session", response_model=Ok)
async def collab_end_session(access: CanWriteVersion) -> ORJSONResponse:
    """End the session for everyone (host only)."""
    await collab.end_session(access)
    return ORJSONResponse({"ok": True})
