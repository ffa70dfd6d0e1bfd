"""The ``auth.session_token`` cookie: ``<token>.<HMAC>``, only a hash of the token stored."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from fastapi import Request, Response
from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.config import settings
from plumbline.db import before_commit
from plumbline.errors import Forbidden, Unauthorized
from plumbline.kit import clock, crypto
from plumbline.kit.client_address import client_ip
from plumbline.models import AuthSession, User
from plumbline.snapshots import Snapshots

COOKIE_NAME = "auth.session_token"
SESSION_DAYS = 30
REFRESH_AFTER = timedelta(days=1)
UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def on_response(request: Request, callback: Callable[[Response], None]) -> None:
    """Let a dependency touch the final response (cookies, rate-limit headers)."""
    if not hasattr(request.state, "on_response"):
        request.state.on_response = []
    request.state.on_response.append(callback)


def set_session_cookie(response: Response, token: str, *, remember: bool) -> None:
    response.set_cookie(
        COOKIE_NAME,
        crypto.signed(token, "session"),
        max_age=SESSION_DAYS * 86400 if remember else None,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE_NAME, path="/", httponly=True, samesite="lax")


async def create_session(
    db: AsyncSession, user: User, request: Request, *, remember: bool = True
) -> tuple[AuthSession, str]:
    token = crypto.random_token()
    now = clock.now()
    session = AuthSession(
        user_id=user.id,
        token_hash=crypto.sha256_hex(token),
        expires_at=now + (timedelta(days=SESSION_DAYS) if remember else timedelta(days=1)),
        remember=remember,
        ip_address=client_ip(request),
        user_agent=(request.headers.get("user-agent") or "")[:500] or None,
        created_at=now,
        updated_at=now,
    )
    db.add(session)
    await db.flush()
    return session, token


def check_origin(request: Request, *, required: bool) -> None:
    """403 for an untrusted ``Origin`` (or the ``Referer``'s origin when only that is sent), and
    for a request carrying neither when ``required``. Browsers send one on cross-site unsafe
    requests, so this refuses cross-site request forgery with a cookie."""
    origin = request.headers.get("origin")
    if origin is None and (referer := request.headers.get("referer")) is not None:
        scheme, _, rest = referer.partition("://")
        origin = f"{scheme}://{rest.split('/', 1)[0]}"
    if origin is None and not required:
        return
    trusted = {o.lower() for o in settings.origins}
    if origin is None or origin.rstrip("/").lower() not in trusted:
        raise Forbidden("Invalid origin", code="INVALID_ORIGIN")


def session_token(cookie: str | None) -> str | None:
    """The token a session cookie carries; None when absent or not signed by us."""
    if not cookie:
        return None
    if cookie.startswith("psk_"):
        raise Unauthorized("API keys must be sent in the x-api-key header")
    return crypto.unsign(cookie, "session")


# The live session and its user, for ``session_params``. The authorization dependencies join
# what they check to it, so one statement answers both questions, and read its entities as
# snapshots (``snapshots.Snapshots``). Statements on every request are built once: SQLAlchemy then
# reuses their compiled form and result metadata as they are.
LIVE_SESSION = (
    select(AuthSession, User)
    .join(User, User.id == AuthSession.user_id)
    .where(
        AuthSession.token_hash == bindparam("token_hash"),
        AuthSession.expires_at > bindparam("now"),
    )
)
SESSION_USER = Snapshots(LIVE_SESSION)


def session_params(token: str, now: datetime) -> dict[str, Any]:
    return {"token_hash": crypto.sha256_hex(token), "now": now}


def session_used(
    request: Request, db: AsyncSession, session: AuthSession, token: str, now: datetime
) -> None:
    """What a request on a live session implies: the origin check of unsafe methods, and the
    sliding expiry (written with the request's commit, at most once a day)."""
    if request.method in UNSAFE_METHODS:
        check_origin(request, required=True)
    if session.remember and session.updated_at < now - REFRESH_AFTER:
        slid = (
            update(AuthSession)
            .where(AuthSession.id == session.id)
            .values(expires_at=now + timedelta(days=SESSION_DAYS), updated_at=now)
        )
        before_commit(db, lambda db: db.execute(slid))
        on_response(request, lambda r: set_session_cookie(r, token, remember=True))


async def session_from_cookie(
    db: AsyncSession, request: Request, cookie: str | None
) -> tuple[AuthSession, User] | None:
    """The live session named by the cookie and its user (snapshots), with the sliding expiry
    applied; None when absent."""
    token = session_token(cookie)
    if token is None:
        return None
    now = clock.now()
    row = await SESSION_USER.first(db, session_params(token, now))
    if row is None:
        return None
    session, user = row
    session_used(request, db, session, token, now)
    return session, user
