"""The ``auth.session_token`` cookie: ``<token>.<HMAC>``, only a hash of the token stored."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from fastapi import Request, Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.config import settings
from plumbline.errors import Forbidden, Unauthorized
from plumbline.kit import clock, crypto
from plumbline.models import AuthSession, User

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
        ip_address=request.client.host if request.client else None,
        user_agent=(request.headers.get("user-agent") or "")[:500] or None,
        created_at=now,
        updated_at=now,
    )
    db.add(session)
    await db.flush()
    return session, token


def _check_origin(request: Request) -> None:
    origin = request.headers.get("origin")
    if origin is None and (referer := request.headers.get("referer")):
        scheme, _, rest = referer.partition("://")
        origin = f"{scheme}://{rest.split('/', 1)[0]}" if rest else None
    if origin is None or origin.rstrip("/") not in settings.origins:
        raise Forbidden("Invalid origin", code="INVALID_ORIGIN")


async def session_from_cookie(
    db: AsyncSession, request: Request, cookie: str | None
) -> tuple[AuthSession, User] | None:
    """The live session named by the cookie, with the sliding expiry applied; None when absent."""
    if not cookie:
        return None
    if cookie.startswith("psk_"):
        raise Unauthorized("API keys must be sent in the x-api-key header")
    token = crypto.unsign(cookie, "session")
    if token is None:
        return None
    now = clock.now()
    row = (
        await db.execute(
            select(AuthSession, User)
            .join(User, User.id == AuthSession.user_id)
            .where(AuthSession.token_hash == crypto.sha256_hex(token), AuthSession.expires_at > now)
        )
    ).first()
    if row is None:
        return None
    session, user = row.tuple()
    if request.method in UNSAFE_METHODS:
        _check_origin(request)
    if session.remember and session.updated_at < now - REFRESH_AFTER:
        session.expires_at = now + timedelta(days=SESSION_DAYS)
        session.updated_at = now
        on_response(request, lambda r: set_session_cookie(r, token, remember=True))
    return session, user
