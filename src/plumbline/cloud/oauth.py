"""OAuth 2.0 with Authlib: state, PKCE, code and refresh exchanges, tokens sealed at rest."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import httpx
from authlib.common.security import generate_token

from plumbline.cloud.client import AsyncOAuth2Client
from plumbline.cloud.errors import InvalidState, StateExpired
from plumbline.cloud.providers import Endpoints, Provider
from plumbline.config import settings
from plumbline.kit import clock, crypto

STATE_TTL = timedelta(minutes=10)
REFRESH_AHEAD = timedelta(seconds=60)
STATE_PURPOSE = "cloud:state"
TOKEN_PURPOSE = "cloud:tokens"  # noqa: S105 - a key-derivation label
TIMEOUT = httpx.Timeout(60.0, connect=10.0)

UpdateToken = Callable[..., Awaitable[None]]


def redirect_uri(provider: Provider) -> str:
    return f"{settings.public_url.rstrip('/')}/api/v1/cloud/{provider.name.value}/callback"


def client(
    provider: Provider,
    endpoints: Endpoints,
    token: dict[str, Any] | None = None,
    update_token: UpdateToken | None = None,
) -> AsyncOAuth2Client:
    """Authlib's httpx client for one provider: PKCE S256 on the authorization, the client
    secret in the token requests' body, the bearer token on every API call."""
    return AsyncOAuth2Client(
        client_id=endpoints.client_id,
        client_secret=endpoints.client_secret,
        token_endpoint_auth_method="client_secret_post",  # noqa: S106 - a method name
        code_challenge_method="S256",
        redirect_uri=redirect_uri(provider),
        token_endpoint=endpoints.token_url,
        token=token,
        update_token=update_token,
        leeway=int(REFRESH_AHEAD.total_seconds()),
        timeout=TIMEOUT,
    )


def new_verifier() -> str:
    """A PKCE code verifier: 64 characters of [A-Za-z0-9] (RFC 7636 asks 43 to 128)."""
    return str(generate_token(64))


# ---- state: ``<base64url claims>.<HMAC>`` naming the authorization row, the user, the provider


def make_state(authorization_id: str, user_id: str, provider: str, expires_at: datetime) -> str:
    claims = {"a": authorization_id, "u": user_id, "p": provider}
    return crypto.signed_claims(claims, STATE_PURPOSE, expires_at)


def read_state(state: str, user_id: str, provider: str) -> str:
    """The authorization id a state names: 400 when it was altered, is another user's or
    another provider's, or is older than ten minutes."""
    claims = crypto.unsign_claims(state, STATE_PURPOSE)
    if claims is None or claims.get("u") != user_id or claims.get("p") != provider:
        raise InvalidState()
    if claims["x"] < clock.now().timestamp():
        raise StateExpired()
    return str(claims["a"])


# ---- tokens at rest


def seal(value: str) -> str:
    return crypto.encrypt(value, TOKEN_PURPOSE)


def unseal(value: str | None) -> str | None:
    return crypto.decrypt(value, TOKEN_PURPOSE) if value else None


def expiry_of(token: dict[str, Any]) -> datetime | None:
    """When an access token expires, by our clock, from the token response's ``expires_in``."""
    try:
        return clock.now() + timedelta(seconds=int(float(token["expires_in"])))
    except (KeyError, TypeError, ValueError):
        pass
    expires_at = token.get("expires_at")
    if isinstance(expires_at, int | float):
        return datetime.fromtimestamp(expires_at, clock.now().tzinfo)
    return None
