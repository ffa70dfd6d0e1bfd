"""The OpenID Connect sign-in: authorization code with PKCE (S256), state and nonce, through
Authlib's client; the ID token checked with joserfc against the provider's JWKS."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from fastapi import Request
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, created
from plumbline.auth.principal import Principal
from plumbline.auth.session import create_session
from plumbline.authz.plans import Feature, require_feature
from plumbline.cloud.client import AsyncOAuth2Client
from plumbline.cloud.oauth import new_verifier
from plumbline.db import UnitOfWork
from plumbline.errors import found
from plumbline.identity import repository as identity_repo
from plumbline.kit import clock, crypto
from plumbline.member.service import member as member_service
from plumbline.models import ExternalIdentity, SsoConfig, SsoLogin, User, Workspace
from plumbline.sso import repository
from plumbline.sso.errors import (
    EmailDomainNotAllowed,
    InvalidIdToken,
    InvalidState,
    ProviderError,
    SsoDenied,
    SsoNotConfigured,
    StateExpired,
    UserDeactivated,
)
from plumbline.sso.service import base_url, redirect_uri, unseal

STATE_TTL = timedelta(minutes=10)
VERIFIER_PURPOSE = "sso:verifier"
SCOPE = "openid email profile"
TIMEOUT = httpx.Timeout(15.0, connect=5.0)
DISCOVERY_TTL = 3600.0  # seconds a discovery document is kept
LEEWAY = 30  # seconds of clock skew allowed on exp, iat, nbf
# Asymmetric signatures only: "none" and the HMAC family (keyed with the client secret) never.
ALGORITHMS = [
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
]

_discovered: dict[str, tuple[float, dict[str, Any]]] = {}


@dataclass(frozen=True)
class SignedIn:
    token: str
    location: str


def _http() -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False)


async def discover(issuer: str) -> dict[str, Any]:
    """The provider's discovery document (kept an hour); its ``issuer`` must be the one
    configured (OpenID Connect Discovery §4.3)."""
    kept = _discovered.get(issuer)
    if kept is not None and kept[0] > time.monotonic():
        return kept[1]
    try:
        async with _http() as http:
            answer = await http.get(f"{issuer}/.well-known/openid-configuration")
            answer.raise_for_status()
            document = answer.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise ProviderError(reason=f"discovery failed: {type(exc).__name__}") from exc
    needed = ("issuer", "authorization_endpoint", "token_endpoint", "jwks_uri")
    if not isinstance(document, dict) or any(not isinstance(document.get(k), str) for k in needed):
        raise ProviderError(reason="the discovery document lacks an endpoint")
    if document["issuer"].rstrip("/") != issuer:
        raise ProviderError(reason="the discovery document names another issuer")
    _discovered[issuer] = (time.monotonic() + DISCOVERY_TTL, document)
    return document


def _client(config: SsoConfig) -> AsyncOAuth2Client:
    return AsyncOAuth2Client(
        client_id=config.client_id,
        client_secret=unseal(config.client_secret),
        token_endpoint_auth_method="client_secret_post",  # noqa: S106 - a method name
        code_challenge_method="S256",
        redirect_uri=redirect_uri(),
        scope=SCOPE,
        timeout=TIMEOUT,
    )


def _same_origin_path(value: str | None) -> str:
    """Where to land after signing in: a path on this server (never another origin)."""
    if value and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    if value:
        parts = urlsplit(value)
        base = urlsplit(base_url())
        if (parts.scheme, parts.netloc) == (base.scheme, base.netloc):
            return value
    return "/"


async def config_of(db: AsyncSession, workspace: Workspace) -> SsoConfig:
    config = found(await repository.config(db, workspace.id), SsoNotConfigured())
    require_feature(workspace, Feature.SSO, write=False)
    return config


async def start_by_slug(db: AsyncSession, slug: str, callback_url: str | None) -> str:
    workspace = found(await repository.live_workspace(db, slug), SsoNotConfigured())
    return await start(db, workspace, callback_url)


async def start_by_email(db: AsyncSession, email: str, callback_url: str | None) -> str:
    domain = email.rsplit("@", 1)[-1].strip().lower()
    workspace = found(await repository.workspace_of_domain(db, domain), SsoNotConfigured())
    return await start(db, workspace, callback_url)


async def start(db: AsyncSession, workspace: Workspace, callback_url: str | None) -> str:
    """Record the sign-in (its state's hash, nonce, PKCE verifier) and answer the provider's
    authorization URL."""
    config = await config_of(db, workspace)
    document = await discover(config.issuer)
    state, nonce, verifier = crypto.random_token(), crypto.random_token(), new_verifier()
    now = clock.now()
    await repository.delete_stale_logins(db, now - STATE_TTL)
    db.add(
        SsoLogin(
            workspace_id=workspace.id,
            state_hash=crypto.sha256_hex(state),
            nonce=nonce,
            code_verifier=crypto.encrypt(verifier, VERIFIER_PURPOSE),
            redirect_to=_same_origin_path(callback_url),
            expires_at=now + STATE_TTL,
            created_at=now,
        )
    )
    await db.flush()
    async with _client(config) as client:
        url, _ = client.create_authorization_url(
            document["authorization_endpoint"], state=state, nonce=nonce, code_verifier=verifier
        )
    return str(url)


async def _claim_login(uow: UnitOfWork, state: str) -> SsoLogin:
    """The sign-in ``state`` names, used once: unknown or used 400, expired 410. Its use is
    committed at once, so a refused callback cannot be replayed either."""
    db = uow.session
    login = await repository.login(db, crypto.sha256_hex(state))
    if login is None or login.used_at is not None:
        raise InvalidState()
    if login.expires_at <= clock.now():
        raise StateExpired()
    if not await repository.use_login(db, login.id, clock.now()):
        raise InvalidState()
    await uow.commit_reads()
    return login


async def _exchange(config: SsoConfig, document: dict[str, Any], code: str, verifier: str) -> str:
    try:
        async with _client(config) as client:
            token = await client.fetch_token(
                document["token_endpoint"], code=code, code_verifier=verifier
            )
    except Exception as exc:  # Authlib raises OAuthError, httpx its own: both the provider's
        raise ProviderError(reason=f"token exchange failed: {exc}"[:300]) from exc
    id_token = token.get("id_token")
    if not isinstance(id_token, str):
        raise ProviderError(reason="the token response has no id_token")
    return id_token


async def _keys(document: dict[str, Any]) -> KeySet:
    try:
        async with _http() as http:
            answer = await http.get(document["jwks_uri"])
            answer.raise_for_status()
            return KeySet.import_key_set(answer.json())
    except (httpx.HTTPError, ValueError, JoseError) as exc:
        raise ProviderError(reason="the provider's keys could not be read") from exc


def verify_id_token(
    id_token: str, keys: KeySet, *, issuer: str, client_id: str, nonce: str
) -> dict[str, Any]:
    """The ID token's claims once its signature (the provider's JWKS), issuer, audience,
    expiry and nonce hold (OpenID Connect Core §3.1.3.7); 401 ``INVALID_ID_TOKEN`` otherwise."""
    try:
        token = jwt.decode(id_token, keys, algorithms=ALGORITHMS)
        claims = dict(token.claims)
        jwt.JWTClaimsRegistry(
            now=int(clock.now().timestamp()),
            leeway=LEEWAY,
            iss={"essential": True, "value": issuer},
            aud={"essential": True, "value": client_id},
            sub={"essential": True},
            exp={"essential": True},
            nonce={"essential": True, "value": nonce},
        ).validate(claims)
    except (JoseError, ValueError) as exc:
        raise InvalidIdToken(reason=str(exc)[:200] or type(exc).__name__) from exc
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if len(audiences) > 1 and claims.get("azp") != client_id:
        raise InvalidIdToken(reason="azp does not name this client")
    return claims


def _email_of(claims: dict[str, Any]) -> str:
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email or claims.get("email_verified") is False:
        raise EmailDomainNotAllowed(reason="the provider sent no verified e-mail address")
    return email.strip().lower()


def _name_of(claims: dict[str, Any], email: str) -> str:
    name = claims.get("name")
    if not isinstance(name, str) or not name.strip():
        parts = [claims.get("given_name"), claims.get("family_name")]
        name = " ".join(p for p in parts if isinstance(p, str) and p.strip())
    return (name or email.split("@", 1)[0]).strip()[:200]


async def _user_for(
    db: AsyncSession, config: SsoConfig, issuer: str, claims: dict[str, Any], email: str
) -> tuple[User, bool]:
    """The user the provider's subject is linked to; else the account with the e-mail (the
    domain is the workspace's, proved), linked now; else a new account, its e-mail verified."""
    now = clock.now()
    subject = str(claims["sub"])
    link = await repository.identity(db, issuer, subject)
    linked = await db.get(User, link.user_id) if link is not None else None
    if link is not None and linked is not None:  # the link's foreign key cascades
        link.last_sign_in_at = now
        return linked, False
    user = await identity_repo.user_by_email(db, email)
    new = user is None
    if user is None:
        user = await identity_repo.add_user(
            db,
            User(
                name=_name_of(claims, email),
                email=email,
                email_verified=True,
                password_hash=None,
                created_at=now,
                updated_at=now,
            ),
        )
        await audit_as(
            db,
            "public",
            ("user", user.id),
            "user.created",
            created({"name": user.name, "email": user.email, "via": "sso"}),
            workspace_id=config.workspace_id,
        )
    elif not user.email_verified:
        user.email_verified = True  # the provider of the domain's owner vouches for it
        user.updated_at = now
    db.add(
        ExternalIdentity(
            user_id=user.id,
            workspace_id=config.workspace_id,
            issuer=issuer,
            subject=subject,
            created_at=now,
            last_sign_in_at=now,
        )
    )
    await db.flush()
    return user, new


async def callback(
    uow: UnitOfWork,
    request: Request,
    *,
    state: str,
    code: str | None,
    error: str | None,
) -> SignedIn:
    """Finish a sign-in: check the ID token, find or create the user, join the workspace with
    the default role, open a session. A refusal writes nothing (the state stays used)."""
    login = await _claim_login(uow, state)
    if error is not None or not code:
        raise SsoDenied(reason=(error or "no code")[:100])
    db = uow.session
    workspace = await db.get(Workspace, login.workspace_id)
    if workspace is None or workspace.deleted_at is not None:
        raise SsoNotConfigured()
    config = await config_of(db, workspace)
    document = await discover(config.issuer)
    verifier = crypto.decrypt(login.code_verifier, VERIFIER_PURPOSE)
    if verifier is None:
        raise InvalidState()
    await uow.commit_reads()  # no transaction held while the provider answers
    id_token = await _exchange(config, document, code, verifier)
    claims = verify_id_token(
        id_token,
        await _keys(document),
        issuer=document["issuer"],
        client_id=config.client_id,
        nonce=login.nonce,
    )
    email = _email_of(claims)
    owner = await repository.workspace_of_domain(db, email.rsplit("@", 1)[1])
    if owner is None or owner.id != workspace.id:
        raise EmailDomainNotAllowed()
    user, new = await _user_for(db, config, document["issuer"], claims, email)
    if await repository.deactivated(db, workspace.id, user.id):
        raise UserDeactivated()
    session, token = await create_session(db, user, request, remember=True)
    principal = Principal(user=user, session=session)
    if await repository.membership(db, workspace.id, user.id) is None:
        await member_service.join(
            db,
            workspace,
            user.id,
            role=config.default_role,
            principal=principal,
            action="member.joined_sso",
        )
    await audit_as(
        db,
        principal,
        ("user", user.id),
        "user.sso_signed_in",
        {"issuer": [None, document["issuer"]], "newUser": [None, new]},
        workspace_id=workspace.id,
    )
    return SignedIn(token=token, location=login.redirect_to or "/")
