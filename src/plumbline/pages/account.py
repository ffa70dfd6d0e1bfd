"""``/account/*``: sign in and up, "check your inbox", sign out, and the signed-in person's
account (their workspaces, the way to create one).

The forms call the services of ``/api/auth/*`` (same rules, rate limits, origin check and
session cookie); the e-mailed links' pages are in ``account_links.py``. After signing in a
person lands in the app (``/app/``: their last workspace, else the form that creates one), or
on ``next``: the page they were on when their session ended.
"""

from __future__ import annotations

import re
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Depends, Query, Request
from starlette.datastructures import FormData
from starlette.responses import RedirectResponse, Response

from plumbline.auth.deps import Public
from plumbline.auth.principal import Principal
from plumbline.auth.session import (
    COOKIE_NAME,
    clear_session_cookie,
    on_response,
    session_from_cookie,
    set_session_cookie,
)
from plumbline.config import settings
from plumbline.db import DB, UoW
from plumbline.errors import InvalidField
from plumbline.identity import schemas
from plumbline.identity.endpoints import same_origin_if_sent
from plumbline.identity.errors import InvalidCredentials, UserAlreadyExists
from plumbline.identity.service import SignedIn, identity
from plumbline.pages.kit import flash, posted, render, text
from plumbline.pages.kit.forms import field_errors, required, validate
from plumbline.pages.kit.i18n import LANGUAGE_COOKIE, choose
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.shell import page as app_page
from plumbline.pages.kit.shell import shell
from plumbline.routing import make_router

HOME = "/account/"
APP = "/app/"
CHECK_INBOX = "/account/check-inbox"
# Same-site paths only: "//host" and "/\host" are other sites to a browser.
_PATH = re.compile(r"/(?![/\\])[^\\\s\x00-\x1f\x7f]*")

router = make_router(tags=["pages"], include_in_schema=False)
PUBLIC = [Public]
FORM = [Public, Depends(same_origin_if_sent)]


def policy_hint() -> str:
    return _(
        "10 to 128 characters, with a lower-case and an upper-case letter, a digit and a symbol."
    )


def messages(data: dict[str, Any]) -> dict[str, str]:
    """What an empty field of ``data`` says, in the request's language."""
    every = required(
        name=_("Enter your name"),
        email=_("Enter your e-mail address"),
        password=_("Enter your password"),
        newPassword=_("Enter a new password"),
        confirmPassword=_("Enter the new password again"),
    )
    return {name: message for name, message in every.items() if name in data}


def role_name(role: str) -> str:
    """``SUPER_ADMIN`` as "Super admin", in the request's language."""
    names = {
        "SUPER_ADMIN": _("Super admin"),
        "ADMIN": _("Admin"),
        "MANAGER": _("Manager"),
        "MEMBER": _("Member"),
    }
    return names.get(role, role.replace("_", " ").capitalize())


def same_site(value: str | None) -> str | None:
    """``next=``: a path on this site, or a 400 page (never a way to send someone elsewhere)."""
    if not value:
        return None
    if len(value) > 2000 or not _PATH.fullmatch(value):
        raise InvalidField("next", "must be a path on this site")
    return value


Next = Annotated[str | None, Query(max_length=2000)]
Email = Annotated[str, Query(max_length=400)]


def with_next(path: str, next_path: str | None, **params: str) -> str:
    """``path?next=...`` (and any other query parameters)."""
    query = urlencode({"next": next_path, **params} if next_path else params)
    return f"{path}?{query}" if query else path


def speak(request: Request) -> str:
    """The request's language for the strings made in Python before rendering."""
    return choose(request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language"))


async def signed_in(request: Request, db: DB) -> Principal | None:
    """The session's user, as the JSON routes read it (origin checked on a POST), or None."""
    found = await session_from_cookie(db, request, request.cookies.get(COOKIE_NAME))
    return Principal(user=found[1], session=found[0]) if found else None


def needs_verifying(principal: Principal) -> bool:
    return settings.require_email_verification and not principal.require_user().email_verified


def page(request: Request, template: str, *, status: int = 200, **context: Any) -> Response:
    """``kit.render`` with the referrer kept to this site (``account/layout.html`` says why)."""
    context.setdefault("errors", {})
    response = render(request, template, status=status, **context)
    response.headers["Referrer-Policy"] = "same-origin"
    return response


def start_session(request: Request, result: SignedIn, to: str) -> RedirectResponse:
    """The cookie exactly as ``/api/auth`` sets it, then on to ``to`` (303: a GET)."""
    token = result.token
    if token is not None:
        on_response(request, lambda r: set_session_cookie(r, token, remember=result.remember))
    return RedirectResponse(to, status_code=303, headers=result.headers)


def _secret(form: FormData, name: str) -> str:
    """A password field as typed (not stripped: spaces may be part of it)."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


# ---------------------------------------------------------------- sign in


@router.get("/account/sign-in", dependencies=PUBLIC)
async def sign_in_page(request: Request, next: Next = None, email: Email = "") -> Response:
    """The sign-in form."""
    return page(request, "account/sign_in.html", next=same_site(next), email=email)


@router.post("/account/sign-in", dependencies=FORM)
async def sign_in(request: Request, db: DB) -> Response:
    """Sign in with e-mail and password: the session cookie, then ``next`` (else the app)."""
    form = await posted(request)
    next_path = same_site(text(form, "next"))
    email = text(form, "email")
    data = {"email": email, "password": _secret(form, "password")}
    shown = {"email": email, "next": next_path}
    body = validate(
        schemas.SignIn, {**data, "rememberMe": bool(form.get("rememberMe"))}, messages(data)
    )
    if isinstance(body, dict):
        return page(request, "account/sign_in.html", status=400, errors=body, **shown)
    try:
        result = await identity.sign_in(db, request, body)
    except InvalidCredentials:
        errors = {"password": _("Invalid email or password. Check both and try again.")}
        return page(request, "account/sign_in.html", status=401, errors=errors, **shown)
    return start_session(request, result, next_path or APP)


# ---------------------------------------------------------------- sign up


def _sign_up_page(request: Request, *, status: int = 200, **context: Any) -> Response:
    return page(request, "account/sign_up.html", status=status, hint=policy_hint(), **context)


@router.get("/account/sign-up", dependencies=PUBLIC)
async def sign_up_page(request: Request, next: Next = None, email: Email = "") -> Response:
    """The form that creates an account."""
    speak(request)
    return _sign_up_page(request, next=same_site(next), email=email, name="")


@router.post("/account/sign-up", dependencies=FORM)
async def sign_up(request: Request, uow: UoW) -> Response:
    """Create the account (the verification e-mail goes out) and sign in; then ``next`` (an
    invite waiting), else "check your inbox"."""
    form = await posted(request)
    next_path = same_site(text(form, "next"))
    shown = {"name": text(form, "name"), "email": text(form, "email"), "next": next_path}
    data = {"name": shown["name"] or "", "email": shown["email"] or ""}
    body = validate(
        schemas.SignUp,
        {**data, "password": _secret(form, "password")},
        messages({**data, "password": ""}),
    )
    if isinstance(body, dict):
        return _sign_up_page(request, status=400, errors=body, **shown)
    try:
        result = await identity.sign_up(uow, request, body)
    except UserAlreadyExists:
        errors = {
            "email": _("An account with this e-mail address already exists: sign in instead.")
        }
        return _sign_up_page(request, status=409, errors=errors, existing=True, **shown)
    except InvalidField as exc:
        return _sign_up_page(request, status=400, errors=field_errors(exc), **shown)
    if next_path:
        return start_session(request, result, next_path)
    return start_session(
        request, result, CHECK_INBOX if settings.require_email_verification else APP
    )


# ---------------------------------------------------------------- signed in


@router.get(CHECK_INBOX, dependencies=PUBLIC)
async def check_inbox(request: Request, db: DB, next: Next = None) -> Response:
    """After signing up, or an app page reached before verifying: the link we e-mailed, a new
    one on request, and the way on once it is opened."""
    next_path = same_site(next)
    principal = await signed_in(request, db)
    if principal is None:
        return RedirectResponse(with_next("/account/sign-in", next_path or APP), status_code=303)
    if not needs_verifying(principal):
        return RedirectResponse(next_path or APP, status_code=303)
    return page(
        request, "account/check_inbox.html", user=principal.require_user(), next=next_path or APP
    )


@router.get(HOME, dependencies=PUBLIC)
async def home(request: Request, db: DB) -> Response:
    """Who is signed in, their workspaces (each opens in the app) and the way to create one."""
    principal = await signed_in(request, db)
    if principal is None:
        return RedirectResponse(with_next("/account/sign-in", HOME), status_code=303)
    me = await identity.me(db, principal)
    speak(request)
    return app_page(
        request,
        "account/home.html",
        await shell(request, db, principal),
        me=me,
        verified=not needs_verifying(principal),
        role_names={w["role"]: role_name(w["role"]) for w in me["workspaces"]},
    )


@router.post("/account/sign-out", dependencies=FORM)
async def sign_out(request: Request, db: DB) -> Response:
    """End this browser's session, then the sign-in page (or ``next``)."""
    form = await posted(request)
    next_path = same_site(text(form, "next"))
    await identity.sign_out(db, request, request.cookies.get(COOKIE_NAME))
    on_response(request, clear_session_cookie)
    to = RedirectResponse(next_path or "/account/sign-in", status_code=303)
    return flash(to, _("You are signed out."))
