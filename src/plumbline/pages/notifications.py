"""``/app/notifications``: the person's notifications (all or unread), opening one (read, then
its page), marking all read; ``/app/notifications/bell`` is the header's bell alone, which a
tab asks for again when its live stream says something new arrived."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Request
from starlette.responses import RedirectResponse, Response

from plumbline.auth.deps import CurrentUser
from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.notification.service import notification
from plumbline.pages.kit import flash, posted, render
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.i18n import ngettext
from plumbline.pages.kit.lists import Listing
from plumbline.pages.kit.nav import page_for
from plumbline.pages.kit.shell import page, shell
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)
PATH = "/app/notifications"
Show = Annotated[str, Query(alias="show", pattern="^(all|unread)$")]


@router.get(PATH)
async def notifications(
    request: Request, principal: CurrentUser, db: DB, page_: Page, show: Show = "all"
) -> Response:
    """Newest first; ``?show=unread`` for the unread ones."""
    rows, headers = await notification.list_for(
        db, principal, unread_only=show == "unread", page=page_
    )
    for row in rows:
        row["page"] = page_for(row["href"])
    listing = Listing.of(request, rows, headers, filters=("show",))
    layout = await shell(request, db, principal)
    return page(request, "notifications/list.html", layout, listing=listing, show=show, path=PATH)


@router.get(PATH + "/bell")
async def bell(request: Request, principal: CurrentUser, db: DB) -> Response:
    """The bell with its unread count (the layout's ``#bell``), for a live tab."""
    unread = await notification.unread(db, principal.require_user().id)
    return render(request, "app/_bell.html", unread=unread)


@router.post(PATH + "/{notificationId}/open")
async def open_one(
    request: Request, principal: CurrentUser, db: DB, notificationId: str
) -> Response:
    """Read, then the page of what it is about."""
    await posted(request)
    href = await notification.open(db, principal, notificationId)
    return RedirectResponse(page_for(href), status_code=303)


@router.post(PATH + "/read-all")
async def read_all(request: Request, principal: CurrentUser, db: DB) -> Response:
    """Every unread notification read; back to the list."""
    await posted(request)
    changed = await notification.mark_read(db, principal, None)
    message = (
        ngettext("%(num)d notification marked read.", "%(num)d notifications marked read.", changed)
        % {"num": changed}
        if changed
        else _("Nothing was unread.")
    )
    return flash(RedirectResponse(PATH, status_code=303), message)
