"""``/app/``: the door into the app (the person's last workspace, else their first, else the
form that creates one; sign in first when nobody is; ``/`` leads here, ``home/endpoints.py``);
the language choice; the shortcuts."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import RedirectResponse, Response

from plumbline.auth.deps import CurrentUser, Public
from plumbline.db import DB
from plumbline.identity import repository as identity_repo
from plumbline.pages.account import same_site, signed_in, with_next
from plumbline.pages.kit import posted, text
from plumbline.pages.kit.i18n import LANGUAGE_COOKIE, LANGUAGES
from plumbline.pages.kit.shell import WORKSPACE_COOKIE, page, shell
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)


@router.get("/app", dependencies=[Public])
async def app_root() -> Response:
    return RedirectResponse("/app/", status_code=308)


@router.get("/app/", dependencies=[Public])
async def door(request: Request, db: DB) -> Response:
    """Into the app: the workspace last open, or the first; a new user creates one."""
    principal = await signed_in(request, db)
    if principal is None:
        return RedirectResponse(with_next("/account/sign-in", "/app/"), status_code=303)
    workspaces = await identity_repo.member_workspaces(db, principal.require_user().id)
    if not workspaces:
        return RedirectResponse("/app/workspaces/new", status_code=303)
    last = request.cookies.get(WORKSPACE_COOKIE)
    chosen = next((w for w in workspaces if w.id == last), workspaces[0])
    return RedirectResponse(f"/app/workspaces/{chosen.id}", status_code=303)


@router.post("/app/language", dependencies=[Public])
async def choose_language(request: Request) -> Response:
    """The person's language for the pages, kept by this browser."""
    form = await posted(request)
    chosen = text(form, "language")
    response = RedirectResponse(same_site(text(form, "next")) or "/app/", status_code=303)
    if chosen in LANGUAGES:
        response.set_cookie(
            LANGUAGE_COOKIE, chosen, max_age=365 * 86400, path="/", samesite="lax", httponly=True
        )
    return response


@router.get("/app/help/keys")
async def shortcuts(request: Request, db: DB, principal: CurrentUser) -> Response:
    """The keyboard shortcuts."""
    return page(request, "door/keys.html", await shell(request, db, principal))
