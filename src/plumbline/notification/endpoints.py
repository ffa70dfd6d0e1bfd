"""``/me/notifications``: the caller's in-app notifications."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from plumbline.auth.deps import CurrentUser
from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.notification.schemas import MarkRead, NotificationRead, Updated
from plumbline.notification.service import notification
from plumbline.routing import make_router

router = make_router(tags=["notifications"])


@router.get("/me/notifications", response_model=list[NotificationRead])
async def list_notifications(
    principal: CurrentUser,
    db: DB,
    page: Page,
    unread_only: Annotated[bool, Query(alias="unreadOnly")] = False,
) -> ORJSONResponse:
    """The caller's notifications, newest first."""
    return ORJSONResponse.page(
        await notification.list_for(db, principal, unread_only=unread_only, page=page)
    )


@router.patch("/me/notifications/read", response_model=Updated)
async def mark_read(body: MarkRead, principal: CurrentUser, db: DB) -> ORJSONResponse:
    """Mark some of the caller's notifications read; returns how many changed."""
    return ORJSONResponse({"updated": await notification.mark_read(db, principal, body.ids)})


@router.post("/me/notifications/read-all", response_model=Updated)
async def mark_all_read(principal: CurrentUser, db: DB) -> ORJSONResponse:
    """Mark every notification of the caller read; returns how many changed."""
    return ORJSONResponse({"updated": await notification.mark_read(db, principal, None)})
