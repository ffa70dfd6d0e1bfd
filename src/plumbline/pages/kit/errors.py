"""Every refusal under the pages' prefixes as a page: what happened, in words, with its status
(never JSON or a stack trace). A visitor without a session on an app page is sent to sign in
and brought back."""

from __future__ import annotations

import http
from typing import Any
from urllib.parse import urlencode, urlsplit

from fastapi import Request
from starlette.responses import RedirectResponse, Response

from plumbline.errors import AppError
from plumbline.models import Workspace
from plumbline.pages.kit.brand import Brand
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.respond import render

SIGN_IN = "/account/sign-in"
CHECK_INBOX = "/account/check-inbox"


def headings() -> dict[int, str]:
    return {
        400: _("Something in the form was not right"),
        401: _("Please sign in"),
        402: _("Your plan does not include this"),
        403: _("This can't be done from here"),
        404: _("This link doesn't lead anywhere"),
        405: _("This can't be done from here"),
        409: _("This has already been answered"),
        410: _("This link has expired"),
        412: _("Someone changed this meanwhile"),
        413: _("That was too large to send"),
        415: _("That kind of file can't be used"),
        429: _("Too many attempts"),
        500: _("Something went wrong on our side"),
        503: _("This is not available right now"),
    }


def advice(status: int, app: bool) -> str | None:
    if status == 404 and app:
        return _("It may have been deleted, or it belongs to a workspace you are not in.")
    return {
        404: _(
            "Check that the whole link from the e-mail was opened, or ask the sender for a new one."
        ),
        410: _("Ask the sender for a new link."),
        412: _("Reload the page to see the latest version, then make your change again."),
        429: _("Please wait a minute, then try again."),
        500: _("Nothing was changed. Please try again in a moment."),
    }.get(status)


def _back_to(request: Request) -> str:
    """Where to come back after signing in: this page, or for a form the page it was on."""
    if request.method in ("GET", "HEAD"):
        current = (
            request.headers.get("hx-current-url") if request.headers.get("hx-request") else None
        )
        if current:
            parts = urlsplit(current)
            return parts.path + (f"?{parts.query}" if parts.query else "")
        query = request.url.query
        return request.url.path + (f"?{query}" if query else "")
    referer = urlsplit(request.headers.get("referer") or "")
    return referer.path if referer.path.startswith("/app/") else "/app/"


def error_page(error: AppError, request: Request | None = None) -> Response:
    """The refusal as a page with its status and headers (``Retry-After`` of a 429)."""
    status = error.status
    app = request is not None and request.url.path.startswith("/app/")
    unverified = error.code == "EMAIL_NOT_VERIFIED"
    if request is not None and app and (status == 401 or unverified):
        # No session: sign in; an address not verified yet: the page that says how (and resends).
        to = f"{CHECK_INBOX if unverified else SIGN_IN}?{urlencode({'next': _back_to(request)})}"
        if request.headers.get("hx-request"):
            return Response(status_code=200, headers={"HX-Redirect": to})
        return RedirectResponse(to, status_code=303)
    # Starlette's own refusals say only their status's phrase ("Not Found"): the heading does.
    phrase = http.HTTPStatus(status).phrase if status in set(http.HTTPStatus) else None
    context: dict[str, Any] = {
        "code": status,
        "heading": headings().get(status, _("This can't be done")),
        "message": None if error.message == phrase else error.message,
        "advice": advice(status, app),
        "app": app,
    }
    # A known token refused (expired, used, withdrawn) still shows its workspace's branding.
    rows = getattr(error.about, "rows", ())
    workspace = next((row for row in rows if isinstance(row, Workspace)), None)
    if workspace is not None:
        context["brand"] = Brand.of_workspace(workspace)
    if request is None:  # the middleware's 413 and 500
        request = Request(
            {"type": "http", "method": "GET", "path": "/", "headers": [], "query_string": b""}
        )
    headers = dict(error.headers or {})
    boosted = request.headers.get("hx-boosted") == "true"
    if request.headers.get("hx-request") and not boosted and status < 500:
        # htmx swaps nothing on an error status: the page's own handler shows the message.
        # A boosted link or form is a navigation: its error page is shown (app.js).
        headers["HX-Reswap"] = "none"
    return render(request, "error.html", status=status, headers=headers, **context)
