"""Every state change is a POST carrying the CSRF token: a double-submit token (a cookie
another site can neither read nor set, and the same value in the form's ``csrf`` field or
htmx's ``X-CSRF-Token`` header), and an ``Origin`` we trust when the browser sends one. One
check for every form: the portal's, the account's and the app's."""

from __future__ import annotations

import secrets

from fastapi import Request
from starlette.datastructures import FormData

from plumbline.auth.session import check_origin
from plumbline.errors import AppError, BadRequest, Forbidden
from plumbline.pages.kit import i18n

CSRF_COOKIE = "plumbline_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


class CsrfRefused(
    Forbidden,
    code="CSRF",
    message="This form has expired or was sent from another site. Reload the page and try again.",
): ...


def csrf_token(request: Request) -> tuple[str, bool]:
    """The browser's token and whether it is new (the page sets the cookie then)."""
    sent = request.cookies.get(CSRF_COOKIE)
    if sent and len(sent) <= 100:
        return sent, False
    return secrets.token_urlsafe(32), True


def check_csrf(request: Request, sent: object) -> None:
    """403 ``CSRF`` unless ``sent`` matches the cookie and the ``Origin`` (or ``Referer``) is
    ours when the browser names one."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie or not isinstance(sent, str) or not secrets.compare_digest(cookie, sent):
        raise CsrfRefused()
    # A page whose URL is a credential sends no referrer, and so a browser posts its form with
    # ``Origin: null``: the token is the proof then. Any other site named is refused.
    if request.headers.get("origin") == "null":
        return
    try:
        check_origin(request, required=False)
    except Forbidden:
        raise CsrfRefused() from None


async def posted(request: Request, *, max_files: int = 0, max_fields: int = 200) -> FormData:
    """The form the page posted, once its token and origin are checked (403 page otherwise)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in ("application/x-www-form-urlencoded", "multipart/form-data"):
        raise BadRequest("Send the form from its page")
    try:
        form = await request.form(max_files=max_files, max_fields=max_fields)
    except AppError:
        raise
    except Exception:  # python-multipart's refusals of a malformed or oversized form
        raise BadRequest("The form could not be read. Reload the page and try again.") from None
    check_csrf(request, form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER))
    i18n.choose(request.cookies.get(i18n.LANGUAGE_COOKIE), request.headers.get("accept-language"))
    return form


def text(form: FormData, name: str) -> str:
    """A text field of the form, stripped ('' when missing or a file)."""
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""
