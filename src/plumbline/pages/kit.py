"""What every page shares: the templates, the workspace's branding, the CSRF check, the posted
form, the error page and the one stylesheet and script.

Pages call the same services as the public JSON routes; a refusal raised under ``/portal/`` or
``/account/`` becomes ``templates/error.html`` (``errors.ErrorAnswer``), never JSON.
"""

from __future__ import annotations

import hashlib
import http
import re
import secrets
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from fastapi import Request
from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse, Response

from plumbline.auth.deps import Public
from plumbline.config import settings
from plumbline.errors import AppError, BadRequest, Forbidden, NotFound
from plumbline.file.branding import logo_url
from plumbline.models import Workspace
from plumbline.proposal.document.letter import day, money, number
from plumbline.routing import make_router

CSRF_COOKIE = "plumbline_csrf"
CSRF_FIELD = "csrf"
DEFAULT_COLOR = "#1F4068"  # the proposal PDF's accent
_COLOR = re.compile(r"#[0-9A-Fa-f]{6}")
STATIC = "/portal/static"
STATIC_TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}


class CsrfRefused(
    Forbidden,
    code="CSRF",
    message="This form has expired or was sent from another site. Reload the page and try again.",
): ...


# ---------------------------------------------------------------- branding


def _luminance(color: str) -> float:
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@dataclass(frozen=True)
class Brand:
    """The workspace as its pages show it. ``color`` is a validated ``#rrggbb`` (the only value
    of the workspace's that reaches CSS); ``on_color`` is the text colour on it and ``accent``
    the colour of links on white, both at least AA contrast."""

    name: str
    logo: str | None
    color: str
    on_color: str
    accent: str

    @classmethod
    def of(cls, name: str, workspace_id: str | None, has_logo: bool, color: str | None) -> Brand:
        shown = color.upper() if color and _COLOR.fullmatch(color) else DEFAULT_COLOR
        on = "#FFFFFF" if contrast(shown, "#FFFFFF") >= contrast(shown, "#000000") else "#000000"
        accent = shown if contrast(shown, "#FFFFFF") >= 4.5 else DEFAULT_COLOR
        logo = logo_url(workspace_id) if workspace_id and has_logo else None
        return cls(name=name, logo=logo, color=shown, on_color=on, accent=accent)

    @classmethod
    def of_workspace(cls, workspace: Workspace) -> Brand:
        return cls.of(
            workspace.name, workspace.id, workspace.logo_key is not None, workspace.primary_color
        )


PLUMBLINE = Brand.of("Plumbline", None, False, None)


async def branding(db: AsyncSession, workspace_id: str) -> Brand:
    """The workspace's name, logo and primary colour (the branding its PDFs and e-mails use)."""
    query = select(Workspace.name, Workspace.logo_key, Workspace.primary_color).where(
        Workspace.id == workspace_id
    )
    row = (await db.execute(query)).one_or_none()
    if row is None:
        return PLUMBLINE
    return Brand.of(row.name, workspace_id, row.logo_key is not None, row.primary_color)


# ---------------------------------------------------------------- static files


@cache
def _static(name: str) -> tuple[bytes, str]:
    """A file of ``static/`` and its content hash (the version in its URL)."""
    data = (resources.files("plumbline.pages") / "static" / name).read_bytes()
    return data, hashlib.sha256(data).hexdigest()[:16]


def static_url(name: str) -> str:
    """``/portal/static/pages.css?v=<hash>``: a new version is a new URL, so each is immutable."""
    return f"{STATIC}/{name}?v={_static(name)[1]}"


static_router = make_router(tags=["pages"], dependencies=[Public], include_in_schema=False)


@static_router.get(STATIC + "/{name}")
async def static_file(name: str, request: Request) -> Response:
    """The pages' stylesheet and script."""
    suffix = name[name.rfind(".") :] if "." in name else ""
    if suffix not in STATIC_TYPES or not re.fullmatch(r"[a-z][a-z0-9-]*\.[a-z]+", name):
        raise NotFound("No such file")
    try:
        data, version = _static(name)
    except FileNotFoundError:
        raise NotFound("No such file") from None
    etag = f'"{version}"'
    headers = {"ETag": etag, "Cache-Control": "public, max-age=31536000, immutable"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(data, media_type=STATIC_TYPES[suffix], headers=headers)


# ---------------------------------------------------------------- templates


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("plumbline.pages"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["static"] = static_url
    env.filters.update(money=money, day=day, number=number)
    return env


def policy(nonce: str) -> str:
    """The pages' Content-Security-Policy: their own stylesheet and script only, the brand
    colour's one ``<style>`` by nonce, images of their own, forms posted back to the server."""
    return "; ".join(
        (
            "default-src 'none'",
            f"style-src 'self' 'nonce-{nonce}'",
            "script-src 'self'",
            "img-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        )
    )


def _page(
    template: str, status: int, context: dict[str, Any], headers: dict[str, str] | None = None
) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    context.setdefault("brand", PLUMBLINE)
    html = environment().get_template(template).render(nonce=nonce, **context)
    response = HTMLResponse(html, status_code=status, headers=headers)
    response.headers["Content-Security-Policy"] = policy(nonce)
    # The page's URL is a credential (a token): never sent on to another site, never cached.
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response


def render(request: Request, template: str, *, status: int = 200, **context: Any) -> HTMLResponse:
    """``template`` with ``context`` (``brand=`` a ``Brand``), its CSRF field's value and the
    page's headers; sets the CSRF cookie when the browser has none yet."""
    sent = request.cookies.get(CSRF_COOKIE)
    fresh = not sent or len(sent) > 100
    token = secrets.token_urlsafe(32) if fresh or sent is None else sent
    response = _page(template, status, {**context, "csrf": token})
    if fresh:
        response.set_cookie(
            CSRF_COOKIE,
            token,
            path="/",
            httponly=True,
            samesite="lax",
            secure=settings.public_url.startswith("https://"),
        )
    return response


# ---------------------------------------------------------------- forms


async def posted(request: Request, *, max_files: int = 0, max_fields: int = 50) -> FormData:
    """The form the page posted, once its ``csrf`` field matches the cookie (a double-submit
    token: another site can neither read the cookie nor set the field; 403 page otherwise)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in ("application/x-www-form-urlencoded", "multipart/form-data"):
        raise BadRequest("Send the form from its page")
    try:
        form = await request.form(max_files=max_files, max_fields=max_fields)
    except AppError:
        raise
    except Exception:  # python-multipart's refusals of a malformed or oversized form
        raise BadRequest("The form could not be read. Reload the page and try again.") from None
    cookie = request.cookies.get(CSRF_COOKIE, "")
    sent = form.get(CSRF_FIELD)
    if not cookie or not isinstance(sent, str) or not secrets.compare_digest(cookie, sent):
        raise CsrfRefused()
    return form


def text(form: FormData, name: str) -> str:
    """A text field of the form, stripped ('' when missing or a file)."""
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


# ---------------------------------------------------------------- the error page

HEADINGS = {
    400: "Something in the form was not right",
    403: "This can't be done from here",
    404: "This link doesn't lead anywhere",
    409: "This has already been answered",
    410: "This link has expired",
    413: "That was too large to send",
    415: "That kind of file can't be used",
    429: "Too many attempts",
    500: "Something went wrong on our side",
}
ADVICE = {
    404: "Check that the whole link from the e-mail was opened, or ask the sender for a new one.",
    410: "Ask the sender for a new link.",
    429: "Please wait a minute, then try again.",
    500: "Nothing was changed. Please try again in a moment.",
}


def error_page(error: AppError) -> Response:
    """Any refusal under ``/portal/`` or ``/account/`` as a page with the error's status and
    headers (``Retry-After`` of a 429): what happened, in words, never JSON or a stack trace."""
    status = error.status
    # Starlette's own refusals say only their status's phrase ("Not Found"): the heading does.
    phrase = http.HTTPStatus(status).phrase if status in set(http.HTTPStatus) else None
    context = {
        "status": status,
        "heading": HEADINGS.get(status, "This can't be done"),
        "message": None if error.message == phrase else error.message,
        "advice": ADVICE.get(status),
    }
    # A known token refused (expired, used, withdrawn) still shows its workspace's branding.
    rows = getattr(error.about, "rows", ())
    workspace = next((row for row in rows if isinstance(row, Workspace)), None)
    if workspace is not None:
        context["brand"] = Brand.of_workspace(workspace)
    return _page("error.html", status, context, headers=error.headers)
