"""``/account/*``: sign in and up, sign out, and the signed-in person's workspaces.

The forms call the services of ``/api/auth/*`` (same rules, rate limits, origin check and
session cookie); the e-mailed links' pages are in ``account_links.py``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, TypeVar
from urllib.parse import urlencode

from fastapi import Depends, Query, Request
from pydantic import BaseModel, ValidationError
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
from plumbline.db import DB, UoW
from plumbline.errors import AppError, InvalidField
from plumbline.identity import schemas
from plumbline.identity.endpoints import same_origin_if_sent
from plumbline.identity.errors import InvalidCredentials, UserAlreadyExists
from plumbline.identity.service import SignedIn, identity
from plumbline.pages.kit import posted, render, text
from plumbline.routing import make_router

M = TypeVar("M", bound=BaseModel)
HOME = "/account/"
POLICY_HINT = (
    "10 to 128 characters, with a lower-case and an upper-case letter, a digit and a symbol."
)
# Same-site paths only: "//host" and "/\host" are other sites to a browser.
_PATH = re.compile(r"/(?![/\\])[^\\\s\x00-\x1f\x7f]*")
_REQUIRED = {
    "name": "Enter your name",
    "email": "Enter your e-mail address",
    "password": "Enter your password",
    "newPassword": "Enter a new password",
    "confirmPassword": "Enter the new password again",
}

router = make_router(tags=["pages"], include_in_schema=False)
PUBLIC = [Public]
FORM = [Public, Depends(same_origin_if_sent)]


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


async def signed_in(request: Request, db: DB) -> Principal | None:
    """The session's user, as the JSON routes read it (origin checked on a POST), or None."""
    found = await session_from_cookie(db, request, request.cookies.get(COOKIE_NAME))
    return Principal(user=found[1], session=found[0]) if found else None


def validate(schema: type[M], data: dict[str, Any]) -> M | dict[str, str]:
    """The body the JSON route would take, or the form's field errors (by field name)."""
    errors = {
        name: _REQUIRED[name] for name, value in data.items() if name in _REQUIRED and not value
    }
    if errors:
        return errors
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            name = str(error["loc"][0]) if error["loc"] else "form"
            errors.setdefault(name, _sentence(str(error["msg"]).removeprefix("Value error, ")))
        return errors


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:]


def field_errors(exc: AppError) -> dict[str, str]:
    """A service's refusal of fields (``details``), by field name."""
    details = exc.details or [{"field": "form", "message": exc.message}]
    return {str(d["field"]): _sentence(str(d["message"])) for d in details}


def page(request: Request, template: str, *, status: int = 200, **context: Any) -> Response:
    """``kit.render`` with the referrer kept to this site (``account/layout.html`` says why)."""
    response = render(request, template, status=status, **context)
    response.headers["Referrer-Policy"] = "same-origin"
    return response


def start_session(request: Request, result: SignedIn, to: str) -> RedirectResponse:
    """The cookie exactly as ``/api/auth`` sets it, then on to ``to`` (303: a GET)."""
    token = result.token
    if token is not None:
        on_response(request, lambda r: set_session_cookie(r, token, remember=result.remember))
    return RedirectResponse(to, status_code=303, headers=result.headers)


# ---------------------------------------------------------------- sign in


def _sign_in_page(request: Request, *, status: int = 200, **context: Any) -> Response:
    context.setdefault("errors", {})
    return page(request, "account/sign_in.html", status=status, **context)


@router.get("/account/sign-in", dependencies=PUBLIC)
async def sign_in_page(request: Request, next: Next = None, email: Email = "") -> Response:
    """The sign-in form."""
    return _sign_in_page(request, next=same_site(next), email=email)


@router.post("/account/sign-in", dependencies=FORM)
async def sign_in(request: Request, db: DB) -> Response:
    """Sign in with e-mail and password: the session cookie, then ``next``."""
    form = await posted(request)
    next_path = same_site(text(form, "next"))
    email = text(form, "email")
    data = {"email": email, "password": _secret(form, "password")}
    body = validate(schemas.SignIn, {**data, "rememberMe": bool(form.get("rememberMe"))})
    if isinstance(body, dict):
        return _sign_in_page(request, status=400, errors=body, email=email, next=next_path)
    try:
        result = await identity.sign_in(db, request, body)
    except InvalidCredentials as exc:
        errors = {"password": f"{exc.message}. Check both and try again."}
        return _sign_in_page(request, status=401, errors=errors, email=email, next=next_path)
    return start_session(request, result, next_path or HOME)


def _secret(form: FormData, name: str) -> str:
    """A password field as typed (not stripped: spaces may be part of it)."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


# ---------------------------------------------------------------- sign up


def _sign_up_page(request: Request, *, status: int = 200, **context: Any) -> Response:
    context.setdefault("errors", {})
    return page(request, "account/sign_up.html", status=status, hint=POLICY_HINT, **context)


@router.get("/account/sign-up", dependencies=PUBLIC)
async def sign_up_page(request: Request, next: Next = None, email: Email = "") -> Response:
    """The form that creates an account."""
    return _sign_up_page(request, next=same_site(next), email=email, name="")


@router.post("/account/sign-up", dependencies=FORM)
async def sign_up(request: Request, uow: UoW) -> Response:
    """Create the account (the verification e-mail goes out), sign in, then ``next``."""
    form = await posted(request)
    next_path = same_site(text(form, "next"))
    shown = {"name": text(form, "name"), "email": text(form, "email"), "next": next_path}
    data = {"name": shown["name"] or "", "email": shown["email"] or ""}
    body = validate(schemas.SignUp, {**data, "password": _secret(form, "password")})
    if isinstance(body, dict):
        return _sign_up_page(request, status=400, errors=body, **shown)
    try:
        result = await identity.sign_up(uow, request, body)
    except UserAlreadyExists:
        errors = {"email": "An account with this e-mail address already exists: sign in instead."}
        return _sign_up_page(request, status=409, errors=errors, existing=True, **shown)
    except InvalidField as exc:
        return _sign_up_page(request, status=400, errors=field_errors(exc), **shown)
    return start_session(request, result, next_path or HOME)


# ---------------------------------------------------------------- signed in


@router.get("/account/", dependencies=PUBLIC)
async def home(request: Request, db: DB) -> Response:
    """Who is signed in, and their workspaces; the way to sign out."""
    principal = await signed_in(request, db)
    if principal is None:
        return RedirectResponse(with_next("/account/sign-in", HOME), status_code=303)
    me = await identity.me(db, principal)
    user = principal.require_user()
    return page(request, "account/home.html", me=me, verified=user.email_verified)


@router.post("/account/sign-out", dependencies=FORM)
async def sign_out(request: Request, db: DB) -> Response:
    """End this browser's session, then the sign-in page (or ``next``)."""
    form = await posted(request)
    next_path = same_site(text(form, "next"))
    await identity.sign_out(db, request, request.cookies.get(COOKIE_NAME))
    on_response(request, clear_session_cookie)
    return RedirectResponse(next_path or "/account/sign-in", status_code=303)
