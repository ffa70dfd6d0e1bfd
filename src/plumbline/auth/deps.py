"""One dependency per caller kind. Each is marked so a test can prove every route declares one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.security import APIKeyCookie, APIKeyHeader
from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.principal import Principal
from plumbline.auth.session import (
    COOKIE_NAME,
    SESSION_USER,
    on_response,
    session_params,
    session_token,
    session_used,
)
from plumbline.config import settings
from plumbline.db import before_commit, session_of
from plumbline.errors import EmailNotVerified, Forbidden, NotConfigured, Unauthorized
from plumbline.kit import clock, crypto, ratelimit
from plumbline.models import ApiKey
from plumbline.snapshots import Snapshots

# The credentials a caller may send. The principal dependencies read them from the request
# themselves (as sub-dependencies FastAPI would solve each on every request, for a header read)
# and name them in ``principal_dependency``, from which openapi.py declares each route's security.
session_cookie = APIKeyCookie(name=COOKIE_NAME, auto_error=False, scheme_name="SessionCookie")
api_key_header = APIKeyHeader(name="x-api-key", auto_error=False, scheme_name="ApiKey")
cron_header = APIKeyHeader(name="x-service-cron-secret", auto_error=False, scheme_name="CronSecret")
Scheme = APIKeyCookie | APIKeyHeader

F = TypeVar("F", bound=Callable[..., Any])
KEYS_ONLY_ON_PROJECTS = "API keys are accepted on project-scoped routes only"
API_KEY_READS_PER_MINUTE = 600
API_KEY_WRITES_PER_MINUTE = 120
LAST_USED_PRECISION = timedelta(minutes=1)


def principal_dependency(*schemes: Scheme) -> Callable[[F], F]:
    """Marks a dependency as one that authenticates the caller with ``schemes`` (none for the
    public routes): a test proves every route declares one, openapi.py reads the schemes."""

    def mark(func: F) -> F:
        func.__plumbline_principal__ = True  # type: ignore[attr-defined]
        func.__plumbline_schemes__ = schemes  # type: ignore[attr-defined]
        return func

    return mark


def sent(request: Request, scheme: Scheme) -> str | None:
    """The credential the request sends for ``scheme``; None when absent or empty."""
    if isinstance(scheme, APIKeyCookie):
        return request.cookies.get(scheme.model.name) or None
    return request.headers.get(scheme.model.name) or None


def identified(request: Request, principal: Principal) -> Principal:
    """``principal``, named on the request as the caller (``Principal.identity``) its
    ``Idempotency-Key`` belongs to (``plumbline.idempotency``)."""
    request.state.caller = principal.identity
    return principal


async def user_with(
    request: Request,
    query: Snapshots = SESSION_USER,
    params: dict[str, Any] | None = None,
    *,
    verified: bool,
) -> tuple[Principal, tuple[Any, ...]]:
    """The session user (401, or 403 for an API key on a route that takes none, or for an
    unverified e-mail when ``verified``) and the row of ``query``: ``SESSION_USER`` or a
    statement joining to ``LIVE_SESSION`` what the caller checks next (``params`` are its own
    parameters), so one statement answers both. Its entities are snapshots."""
    token = session_token(sent(request, session_cookie))
    now = clock.now()
    row = None
    if token is not None:
        db = await session_of(request)
        row = await query.first(db, {**session_params(token, now), **(params or {})})
    if row is None or token is None:
        if sent(request, api_key_header):
            raise Forbidden(KEYS_ONLY_ON_PROJECTS, code="API_KEY_PROJECT")
        raise Unauthorized()
    session, user = row[0], row[1]
    session_used(request, db, session, token, now)
    if verified and settings.require_email_verification and not user.email_verified:
        raise EmailNotVerified()
    return identified(request, Principal(user=user, session=session)), row


@principal_dependency(session_cookie)
async def current_user(request: Request) -> Principal:
    return (await user_with(request, verified=True))[0]


@principal_dependency(session_cookie)
async def current_user_unverified(request: Request) -> Principal:
    return (await user_with(request, verified=False))[0]


# The key with the hash ``key_hash``; project routes join the project to it.
KEY_BY_HASH = select(ApiKey).where(ApiKey.key_hash == bindparam("key_hash"))
KEY = Snapshots(KEY_BY_HASH)


async def api_key_principal(request: Request, db: AsyncSession, raw: str) -> Principal:
    """Resolve an ``x-api-key``: 401 when unknown, revoked or expired; counts the rate limit."""
    found = await KEY.first(db, {"key_hash": crypto.sha256_hex(raw)})
    return await key_principal(request, db, found[0] if found else None)


async def key_principal(request: Request, db: AsyncSession, key: ApiKey | None) -> Principal:
    """The checks of ``api_key_principal`` on a key already read (a snapshot; None when
    unknown). Its last use is written with the request's commit, at most once a minute."""
    now = clock.now()
    if key is None or key.revoked_at is not None or (key.expires_at and key.expires_at <= now):
        raise Unauthorized("Invalid or revoked API key")
    write = request.method not in ("GET", "HEAD", "OPTIONS")
    verdict = await ratelimit.hit(
        f"key:{key.id}:{'w' if write else 'r'}",
        API_KEY_WRITES_PER_MINUTE if write else API_KEY_READS_PER_MINUTE,
        60,
    )
    if verdict.enforced:
        on_response(request, lambda r: r.headers.update(verdict.headers()))
    if key.last_used_at is None or key.last_used_at < now - LAST_USED_PRECISION:
        used = update(ApiKey).where(ApiKey.id == key.id).values(last_used_at=now)
        before_commit(db, lambda db: db.execute(used))
    return identified(request, Principal(api_key=key))


@principal_dependency(session_cookie, api_key_header)
async def user_or_api_key(request: Request) -> Principal:
    """A verified session user, or an API key (the caller checks its project and scope)."""
    key = sent(request, api_key_header)
    if key and not sent(request, session_cookie):
        return await api_key_principal(request, await session_of(request), key)
    return (await user_with(request, verified=True))[0]


def require_scope(principal: Principal, scope: str) -> None:
    if principal.api_key is not None and scope not in principal.api_key.scopes:
        raise Forbidden(f"API key missing scope: {scope}", code="API_KEY_SCOPE")


def require_key_project(principal: Principal, project_id: str) -> None:
    if principal.api_key is not None and principal.api_key.project_id != project_id:
        raise Forbidden("This API key belongs to another project", code="API_KEY_PROJECT")


@principal_dependency(cron_header)
async def cron_caller(request: Request) -> None:
    """Internal automation: the ``x-service-cron-secret`` header, compared in constant time."""
    secret = sent(request, cron_header)
    if settings.cron_secret is None:
        raise NotConfigured("PLUMBLINE_CRON_SECRET is not set")
    if not secret or not crypto.constant_time_equals(
        secret, settings.cron_secret.get_secret_value()
    ):
        raise Unauthorized()
    request.state.caller = "cron"


@principal_dependency()
async def public_caller() -> None:
    """Routes whose credential is an opaque token in the path, or none at all."""


CurrentUser = Annotated[Principal, Depends(current_user)]
CurrentUserUnverified = Annotated[Principal, Depends(current_user_unverified)]
UserOrApiKey = Annotated[Principal, Depends(user_or_api_key)]
Cron = Depends(cron_caller)
Public = Depends(public_caller)
