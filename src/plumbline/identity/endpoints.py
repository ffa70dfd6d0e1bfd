"""``/api/auth/*`` (Better Auth's REST contract) and ``/api/v1/me``."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from starlette.responses import RedirectResponse

from plumbline.auth.deps import CurrentUser, CurrentUserUnverified, Public, session_cookie
from plumbline.auth.session import (
    check_origin,
    clear_session_cookie,
    on_response,
    set_session_cookie,
)
from plumbline.db import DB, UoW
from plumbline.errors import (
    AppError,
    error_response,
    validation_failed,
)
from plumbline.identity import schemas as s
from plumbline.identity.service import SignedIn, identity
from plumbline.kit.responses import ORJSONResponse
from plumbline.openapi import errors
from plumbline.routing import UnitOfWorkRoute, make_router, transactional

SessionCookie = Annotated[str | None, Depends(session_cookie)]


class AuthRoute(UnitOfWorkRoute):
    """Better Auth's client reads ``message``: every error body on ``/api/auth`` carries it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                response = await handler(request)
            except AppError as exc:
                return _with_message(error_response(exc))
            except RequestValidationError as exc:
                return _with_message(error_response(validation_failed(exc)))
            return _with_message(response) if response.status_code >= 400 else response

        return run


def _with_message(response: Response) -> Response:
    try:
        body = orjson.loads(bytes(getattr(response, "body", b"")) or b"null")
    except orjson.JSONDecodeError:
        return response
    if not isinstance(body, dict) or "error" not in body or "message" in body:
        return response
    headers = {
        k: v for k, v in response.headers.items() if k not in ("content-length", "content-type")
    }
    return ORJSONResponse(
        {**body, "message": body["error"]}, status_code=response.status_code, headers=headers
    )


async def same_origin_if_sent(request: Request) -> None:
    """Sign-in and sign-up carry no session yet: refuse an untrusted origin (login CSRF)."""
    check_origin(request, required=False)


PUBLIC = [Public, Depends(same_origin_if_sent)]

router = APIRouter(route_class=AuthRoute, default_response_class=ORJSONResponse, tags=["auth"])
me_router = make_router(tags=["me"])


def _signed_in(request: Request, result: SignedIn) -> ORJSONResponse:
    # Set through on_response so it lands after a sliding-expiry refresh of the old cookie.
    token = result.token
    if token is not None:
        on_response(request, lambda r: set_session_cookie(r, token, remember=result.remember))
    return ORJSONResponse(result.body, headers=result.headers)


def _clear_cookie(request: Request) -> None:
    on_response(request, clear_session_cookie)


@router.post(
    "/sign-up/email",
    response_model=s.TokenAndUser,
    dependencies=PUBLIC,
    responses=errors(403, 409),
)
async def sign_up(body: s.SignUp, request: Request, uow: UoW) -> ORJSONResponse:
    """Create an account, send the verification e-mail and sign in."""
    return _signed_in(request, await identity.sign_up(uow, request, body))


@router.post(
    "/sign-in/email",
    response_model=s.SignedIn,
    dependencies=PUBLIC,
    responses=errors(401, 403),
)
async def sign_in(body: s.SignIn, request: Request, db: DB) -> ORJSONResponse:
    """Sign in with e-mail and password (10 attempts per minute per IP and per e-mail)."""
    return _signed_in(request, await identity.sign_in(db, request, body))


@router.post("/sign-out", response_model=s.Success, dependencies=PUBLIC)
async def sign_out(request: Request, db: DB, cookie: SessionCookie = None) -> ORJSONResponse:
    """End the current session and clear the cookie."""
    await identity.sign_out(db, request, cookie)
    _clear_cookie(request)
    return ORJSONResponse({"success": True})


@router.get("/get-session", response_model=s.SessionAndUser | None, dependencies=[Public])
async def get_session(request: Request, db: DB, cookie: SessionCookie = None) -> ORJSONResponse:
    """The current session and user, or null when signed out."""
    return ORJSONResponse(await identity.get_session(db, request, cookie))


@router.post(
    "/send-verification-email",
    response_model=s.Status,
    dependencies=PUBLIC,
    responses=errors(403),
)
async def send_verification_email(
    body: s.SendVerificationEmail, request: Request, uow: UoW
) -> ORJSONResponse:
    """E-mail a new verification link to an unverified account (same answer for any e-mail)."""
    await identity.send_verification_email(uow, request, body)
    return ORJSONResponse({"status": True})


@router.get(
    "/verify-email",
    response_model=s.Status,
    dependencies=[Public],
    responses={302: {"description": "Redirect to callbackURL"}, **errors(410)},
)
@transactional
async def verify_email(
    db: DB,
    token: Annotated[str, Query(min_length=1, max_length=200)],
    callback_url: Annotated[str | None, Query(alias="callbackURL", max_length=2000)] = None,
) -> Response:
    """Mark the e-mail verified; redirect to callbackURL when given (with ?error= on failure)."""
    location = await identity.verify_email(db, token, callback_url)
    if location is not None:
        return RedirectResponse(location, status_code=302)
    return ORJSONResponse({"status": True})


@router.post(
    "/request-password-reset",
    response_model=s.Status,
    dependencies=PUBLIC,
    responses=errors(403),
)
async def request_password_reset(
    body: s.RequestPasswordReset, request: Request, uow: UoW
) -> ORJSONResponse:
    """E-mail a password reset link (same answer whether or not the e-mail exists)."""
    await identity.request_password_reset(uow, request, body)
    return ORJSONResponse({"status": True})


@router.post(
    "/reset-password",
    response_model=s.Status,
    dependencies=PUBLIC,
    responses=errors(403, 410),
)
async def reset_password(body: s.ResetPassword, db: DB) -> ORJSONResponse:
    """Set a new password with a reset token; every session of the user ends."""
    await identity.reset_password(db, body)
    return ORJSONResponse({"status": True})


@router.post("/change-password", response_model=s.TokenAndUser)
async def change_password(
    body: s.ChangePassword, request: Request, principal: CurrentUserUnverified, db: DB
) -> ORJSONResponse:
    """Change the password; revokeOtherSessions also rotates the caller's session."""
    return _signed_in(request, await identity.change_password(db, request, principal, body))


@router.post("/update-user", response_model=s.Status)
async def update_user(
    body: s.UpdateUser, principal: CurrentUserUnverified, db: DB
) -> ORJSONResponse:
    """Change the caller's name or image."""
    await identity.update_user(db, principal, body)
    return ORJSONResponse({"status": True})


@router.get("/list-sessions", response_model=list[s.SessionRead])
async def list_sessions(principal: CurrentUserUnverified, db: DB) -> ORJSONResponse:
    """The caller's live sessions, newest first (``token`` is the session id)."""
    return ORJSONResponse(await identity.list_sessions(db, principal))


@router.post("/revoke-session", response_model=s.Status)
async def revoke_session(
    body: s.RevokeSession, request: Request, principal: CurrentUserUnverified, db: DB
) -> ORJSONResponse:
    """End one of the caller's sessions, named by its id."""
    if await identity.revoke_session(db, principal, body.token):
        _clear_cookie(request)
    return ORJSONResponse({"status": True})


@router.post("/revoke-other-sessions", response_model=s.Status)
async def revoke_other_sessions(principal: CurrentUserUnverified, db: DB) -> ORJSONResponse:
    """End every session of the caller except this one."""
    await identity.revoke_sessions(db, principal, keep_current=True)
    return ORJSONResponse({"status": True})


@router.post("/revoke-sessions", response_model=s.Status)
async def revoke_sessions(
    request: Request, principal: CurrentUserUnverified, db: DB
) -> ORJSONResponse:
    """End every session of the caller, this one included."""
    await identity.revoke_sessions(db, principal, keep_current=False)
    _clear_cookie(request)
    return ORJSONResponse({"status": True})


@me_router.get("/me", response_model=s.Me)
async def me(principal: CurrentUserUnverified, db: DB) -> ORJSONResponse:
    """The signed-in user and the workspaces they belong to (no e-mail verification needed)."""
    return ORJSONResponse(await identity.me(db, principal))


@me_router.patch("/me/viewer-presence", response_model=s.ViewerPresence)
async def set_viewer_presence(
    body: s.ViewerPresence, principal: CurrentUser, db: DB
) -> ORJSONResponse:
    """Hide or show the caller's presence to other viewers of a drawing."""
    return ORJSONResponse(await identity.set_presence_hidden(db, principal, body.hidden))
