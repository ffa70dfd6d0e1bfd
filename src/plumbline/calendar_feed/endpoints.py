"""``/me/calendar-feeds``, ``/projects/{projectId}/calendar-feeds`` (create with the secret URL
shown once, list, revoke) and the feed itself, ``/calendar/{token}.ics`` (the token is the
only credential, so calendar apps subscribe with no header)."""

from fastapi import Request, Response

from plumbline.auth.deps import CurrentUser, Public
from plumbline.calendar_feed.auth import CanSeeProject
from plumbline.calendar_feed.schemas import FeedCreate, FeedCreated, FeedRead
from plumbline.calendar_feed.service import calendar_feed as feed_service
from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.openapi import Responses
from plumbline.routing import make_router

router = make_router(tags=["calendar-feeds"])
ICS = "text/calendar; charset=utf-8"


@router.get("/me/calendar-feeds", response_model=list[FeedRead])
async def list_my_feeds(principal: CurrentUser, db: DB, page: Page) -> ORJSONResponse:
    """Your personal calendar feeds (never the secret URL), newest first."""
    return ORJSONResponse.page(await feed_service.list_mine(db, principal, page))


@router.post("/me/calendar-feeds", response_model=FeedCreated)
async def create_my_feed(
    principal: CurrentUser, db: DB, body: FeedCreate | None = None
) -> ORJSONResponse:
    """A feed of everything due for you; its URL (url) is shown in this response only."""
    return ORJSONResponse(await feed_service.create_mine(db, principal, body or FeedCreate()))


@router.delete("/me/calendar-feeds/{feedId}", response_model=Ok)
async def revoke_my_feed(principal: CurrentUser, db: DB, feedId: str) -> ORJSONResponse:
    """Revoke one of your feeds; its URL answers 404 from now on."""
    await feed_service.revoke_mine(db, principal, feedId)
    return ORJSONResponse({"ok": True})


@router.get("/projects/{projectId}/calendar-feeds", response_model=list[FeedRead])
async def list_project_feeds(ctx: CanSeeProject, db: DB, page: Page) -> ORJSONResponse:
    """The project's calendar feeds: yours, or everyone's for ADMIN and SUPER_ADMIN."""
    return ORJSONResponse.page(await feed_service.list_project(db, ctx, page))


@router.post("/projects/{projectId}/calendar-feeds", response_model=FeedCreated)
async def create_project_feed(
    ctx: CanSeeProject, db: DB, body: FeedCreate | None = None
) -> ORJSONResponse:
    """A feed of the project's schedule and due dates; its URL is shown in this response only."""
    return ORJSONResponse(await feed_service.create_project(db, ctx, body or FeedCreate()))


@router.delete("/projects/{projectId}/calendar-feeds/{feedId}", response_model=Ok)
async def revoke_project_feed(ctx: CanSeeProject, db: DB, feedId: str) -> ORJSONResponse:
    """Revoke a feed of the project: your own, or anyone's for ADMIN and SUPER_ADMIN."""
    await feed_service.revoke_project(db, ctx, feedId)
    return ORJSONResponse({"ok": True})


PATH = "/calendar/{token}.ics"
ICS_RESPONSE: Responses = {
    200: {"content": {"text/calendar": {}}, "description": "An iCalendar feed"}
}


@router.get(PATH, dependencies=[Public], response_class=Response, responses=ICS_RESPONSE)
@router.head(
    PATH,
    dependencies=[Public],
    response_class=Response,
    responses=ICS_RESPONSE,
    operation_id="head_calendar_feed",
)
async def calendar(token: str, request: Request, db: DB) -> Response:
    """The iCalendar feed of a feed URL, as its owner may see it now (GET or HEAD)."""
    feed = await feed_service.fetch(db, token)
    headers = {
        "Content-Disposition": f'inline; filename="{feed.filename}"',
        "X-Robots-Tag": "noindex",
    }
    if request.method == "HEAD":
        headers["Content-Length"] = str(len(feed.body))
        return Response(media_type=ICS, headers=headers)
    return Response(feed.body, media_type=ICS, headers=headers)
