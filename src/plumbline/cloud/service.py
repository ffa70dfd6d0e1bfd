"""Cloud-storage connectors: connect (OAuth 2.0 code + PKCE), browse, open, import, disconnect.

Connections belong to a user (never shared, never shown to anyone else). Tokens are sealed at
rest and refreshed within a minute of their expiry; a provider that refuses the refresh token
marks the connection RECONNECT_REQUIRED (written even though the request fails) and answers 409
``RECONNECT_REQUIRED``. An import streams the provider's bytes into storage and records them
through the upload service, so it meets every rule of an upload."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from authlib.integrations.base_client import OAuthError
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, audit_change, created
from plumbline.auth.principal import Principal
from plumbline.authz.files import named_project_access
from plumbline.authz.permissions import Permission
from plumbline.authz.plans import (
    PLAN_FEATURES,
    Feature,
    billing_enabled,
    require_feature,
    subscription_active,
)
from plumbline.cloud import oauth
from plumbline.cloud import repository as repo
from plumbline.cloud.client import AsyncOAuth2Client
from plumbline.cloud.errors import (
    AuthorizationFailed,
    InvalidState,
    NotConnected,
    ProviderNotConfigured,
    ProviderUnavailable,
    ReconnectRequired,
)
from plumbline.cloud.providers import PROVIDERS, Endpoints, Item, Provider, ProviderName, check
from plumbline.cloud.rules import (
    RECONNECT,
    check_return_to,
    decode_cursor,
    encode_cursor,
    file_name,
    token_values,
)
from plumbline.cloud.schemas import Browse, ImportItem
from plumbline.db import UnitOfWork
from plumbline.errors import (
    InvalidField,
    PaymentRequired,
    UnsupportedMediaType,
    found,
)
from plumbline.file.objects import discard
from plumbline.file.schemas import CompleteUpload, PresignUpload
from plumbline.file.uploads import upload as upload_service
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.storage import get_storage
from plumbline.models import CloudAuthorization, CloudConnection

log = logging.getLogger("plumbline.cloud")
ENTITY = "cloud_connection"


class CloudService:
    def provider(self, name: ProviderName) -> tuple[Provider, Endpoints]:
        """The provider and its endpoints (503 NOT_CONFIGURED without a client on this server)."""
        provider = PROVIDERS[name]
        endpoints = provider.endpoints()
        if endpoints is None:
            raise ProviderNotConfigured(provider.label)
        return provider, endpoints

    async def require_plan(self, db: AsyncSession, user_id: str) -> None:
        """With billing on, the user must belong to a workspace whose plan has the connectors
        (pro and up) and whose subscription is active: connections are the user's own."""
        if not billing_enabled():
            return
        for workspace in await repo.user_workspaces(db, user_id):
            if Feature.CLOUD in PLAN_FEATURES.get(workspace.plan, set()) and subscription_active(
                workspace
            ):
                return
        raise PaymentRequired(
            "Cloud-storage connectors need the pro plan", code="PLAN_REQUIRED", requiredPlan="pro"
        )

    async def connections(self, db: AsyncSession, principal: Principal) -> list[dict[str, Any]]:
        """The caller's own connections, never their tokens (402 without a connectors plan)."""
        user = principal.require_user()
        await self.require_plan(db, user.id)
        return [
            {
                "provider": row.provider,
                "accountEmail": row.account_email,
                "accountName": row.account_name,
                "connectedAt": clock.iso(row.created_at),
                "expiresAt": clock.iso(row.expires_at) if row.expires_at else None,
                "status": row.status,
            }
            for row in await repo.list_connections(db, user.id)
        ]

    async def authorize(
        self, db: AsyncSession, principal: Principal, name: ProviderName, return_to: str
    ) -> str:
        """The provider's authorization URL; the verifier stays in our database."""
        provider, endpoints = self.provider(name)
        user = principal.require_user()
        check_return_to(return_to)
        await self.require_plan(db, user.id)
        now = clock.now()
        await repo.forget_expired_authorizations(db, user.id, now)
        verifier = oauth.new_verifier()
        authorization = CloudAuthorization(
            id=new_id(),
            user_id=user.id,
            provider=name.value,
            code_verifier=oauth.seal(verifier),
            return_to=return_to,
            created_at=now,
            expires_at=now + oauth.STATE_TTL,
        )
        db.add(authorization)
        await db.flush()
        state = oauth.make_state(authorization.id, user.id, name.value, authorization.expires_at)
        async with oauth.client(provider, endpoints) as http:
            url, _ = http.create_authorization_url(
                endpoints.auth_url,
                state=state,
                code_verifier=verifier,
                scope=provider.scope,
                **provider.authorize_params,
            )
        return str(url)

    async def callback(
        self,
        db: AsyncSession,
        principal: Principal,
        name: ProviderName,
        *,
        code: str | None,
        state: str,
        error: str | None,
    ) -> str:
        """Exchange the code (with the PKCE verifier) and keep the tokens; returns ``returnTo``."""
        provider, endpoints = self.provider(name)
        user = principal.require_user()
        authorization_id = oauth.read_state(state, user.id, name.value)
        found = await repo.take_authorization(db, authorization_id, user.id, name.value)
        if found is None:
            raise InvalidState("This authorization was already used; start the connection again")
        if error or not code:
            raise AuthorizationFailed(
                f"{provider.label} did not grant access ({error or 'no code'})"
            )
        verifier = oauth.unseal(found.code_verifier)
        if verifier is None:
            raise InvalidState()
        async with oauth.client(provider, endpoints) as http:
            try:
                token = await http.fetch_token(
                    endpoints.token_url,
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=verifier,
                )
                account = await provider.account(http)
            except OAuthError as exc:
                raise AuthorizationFailed(
                    f"{provider.label} refused the authorization ({exc.error})"
                ) from exc
            except (httpx.HTTPError, ValueError) as exc:
                raise ProviderUnavailable() from exc
        connection = await repo.get_connection(db, user.id, name.value)
        values = token_values(token, None)
        values.pop("updated_at")
        if connection is None:
            connection = CloudConnection(user_id=user.id, provider=name.value, **values)
            db.add(connection)
        else:
            for key, value in values.items():
                setattr(connection, key, value)
        connection.account_id = (account.id or "")[:200] or None
        connection.account_email = (account.email or "")[:320] or None
        connection.account_name = (account.name or "")[:200] or None
        await db.flush()
        await audit_as(
            db,
            principal,
            (ENTITY, connection.id),
            "cloud.connected",
            created({"provider": name.value, "accountEmail": connection.account_email}),
        )
        return found.return_to

    @asynccontextmanager
    async def connected(
        self, uow: UnitOfWork, principal: Principal, name: ProviderName
    ) -> AsyncIterator[tuple[Provider, AsyncOAuth2Client]]:
        """The provider and an API client carrying the user's token, refreshed first when it
        expires within a minute. A refused refresh (or a 401 from the API) marks the
        connection RECONNECT_REQUIRED and answers 409."""
        provider, endpoints = self.provider(name)
        db = uow.session
        user = principal.require_user()
        await self.require_plan(db, user.id)
        connection = found(await repo.get_connection(db, user.id, name.value), NotConnected())
        if connection.status == RECONNECT:
            raise ReconnectRequired()
        access = oauth.unseal(connection.access_token)
        refresh = oauth.unseal(connection.refresh_token)
        connection_id = connection.id

        def reconnect() -> ReconnectRequired:
            connection.status = RECONNECT
            values = {"status": RECONNECT, "updated_at": clock.now()}
            uow.after_rollback(lambda: repo.write_apart(connection_id, values))
            return ReconnectRequired()

        if access is None:  # sealed under another secret key
            raise reconnect()

        async def updated(token: dict[str, Any], **_: Any) -> None:
            # Kept whatever the request's outcome: a provider that rotates refresh tokens
            # (Microsoft) would refuse the old one next time.
            values = token_values(token, refresh)
            for key, value in values.items():
                setattr(connection, key, value)
            uow.after_rollback(lambda: repo.write_apart(connection_id, values))

        token = {
            "access_token": access,
            "token_type": "Bearer",
            "refresh_token": refresh,
            "expires_at": int(connection.expires_at.timestamp()) if connection.expires_at else None,
        }
        async with oauth.client(provider, endpoints, token, updated) as http:
            try:
                expires_at = connection.expires_at
                if refresh and expires_at and expires_at - clock.now() < oauth.REFRESH_AHEAD:
                    await http.refresh_token(endpoints.token_url, refresh_token=refresh)
                yield provider, http
            except OAuthError as exc:
                # invalid_grant (revoked or expired refresh token), or no refresh token left
                log.info("%s refused the tokens: %s", name.value, exc.error)
                raise reconnect() from exc
            except ReconnectRequired:
                raise reconnect() from None
            except httpx.HTTPError as exc:
                raise ProviderUnavailable() from exc

    async def browse(
        self, uow: UnitOfWork, principal: Principal, name: ProviderName, body: Browse
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of a folder (the root by default) and the cursor of the next, if any."""
        folder_id, page_token = body.folder_id, None
        if body.cursor:
            folder_id, page_token = decode_cursor(body.cursor)
        async with self.connected(uow, principal, name) as (provider, http):
            items, next_token = await provider.browse(http, folder_id, page_token)
        cursor = encode_cursor(folder_id, next_token) if next_token else None
        return [item.read() for item in items], cursor

    async def open_link(
        self, uow: UnitOfWork, principal: Principal, name: ProviderName, item_id: str
    ) -> dict[str, str]:
        """A link that opens the item at the provider, through the caller's own connection."""
        async with self.connected(uow, principal, name) as (provider, http):
            return {"url": await provider.link(http, item_id)}

    async def import_item(
        self, uow: UnitOfWork, principal: Principal, name: ProviderName, body: ImportItem
    ) -> dict[str, Any]:
        """Stream a provider's file into the project as an upload would store it: the same
        access, type, size, quota and version-by-name rules, the same audit, plus
        ``file.imported`` naming the source."""
        db = uow.session
        ctx = await named_project_access(db, principal, body.project_id, Permission.FILES_UPLOAD)
        require_feature(ctx.workspace, Feature.CLOUD, write=True)
        async with self.connected(uow, principal, name) as (provider, http):
            item = await provider.item(http, body.item_id)
            target = await upload_service.presign(db, principal, self._presign(item, body))
            key = target["s3Key"]
            digest = await self._stream(provider, http, item, key, target["headers"])
        try:
            result = await upload_service.complete(
                db, principal, CompleteUpload(upload_id=target["uploadId"], sha256=digest)
            )
            await audit_change(
                db,
                ctx,
                ("file", result["id"]),
                "file.imported",
                created(
                    {
                        "provider": name.value,
                        "itemId": item.id,
                        "name": item.name,
                        "version": result["version"],
                    }
                ),
            )
        except BaseException:
            await discard(key)
            raise
        return result

    def _presign(self, item: Item, body: ImportItem) -> PresignUpload:
        if item.kind == "folder":
            raise InvalidField(
                "itemId",
                "is a folder",
                error="Folders cannot be imported; import the files in them",
            )
        if item.size_bytes is None:
            # Google Docs, Sheets and Slides have no bytes of their own to import
            raise UnsupportedMediaType(
                "This document exists only in the provider's editor; export it to a file first"
            )
        try:
            return PresignUpload(
                file_name=file_name(item.name),
                content_type=item.mime_type or "",
                size_bytes=item.size_bytes,
                project_id=body.project_id,
                folder_id=body.folder_id,
            )
        except ValidationError as exc:
            raise InvalidField(
                "itemId", exc.errors()[0]["msg"], error="The provider's file cannot be imported"
            ) from None

    async def _stream(
        self,
        provider: Provider,
        http: AsyncOAuth2Client,
        item: Item,
        key: str,
        headers: dict[str, str],
    ) -> str:
        """Copy the provider's bytes to ``key`` chunk by chunk; their SHA-256."""
        hasher = hashlib.sha256()
        size = item.size_bytes or 0

        async def chunks() -> AsyncIterator[bytes]:
            async for chunk in response.aiter_bytes():
                hasher.update(chunk)
                yield chunk

        async with provider.download(http, item.id) as response:
            check(response)
            await get_storage().put_stream(
                key, chunks(), headers.get("Content-Type", "application/octet-stream"), size
            )
        return hasher.hexdigest()

    async def disconnect(self, uow: UnitOfWork, principal: Principal, name: ProviderName) -> None:
        """Revoke the grant at the provider (best effort: an unreachable provider does not keep
        the user connected) and forget the tokens."""
        provider, endpoints = self.provider(name)
        db = uow.session
        user = principal.require_user()
        connection = found(await repo.get_connection(db, user.id, name.value), NotConnected())
        access = oauth.unseal(connection.access_token)
        refresh = oauth.unseal(connection.refresh_token)
        revoked = False
        if access is not None:
            token = {"access_token": access, "token_type": "Bearer", "refresh_token": refresh}
            try:
                async with oauth.client(provider, endpoints, token) as http:
                    revoked = await provider.revoke(http, access, refresh)
            except (httpx.HTTPError, OAuthError, ProviderUnavailable, ReconnectRequired):
                log.warning("could not revoke the %s grant of %s", name.value, user.id)
        await repo.delete_connection(db, connection.id)
        await audit_as(
            db,
            principal,
            (ENTITY, connection.id),
            "cloud.disconnected",
            {"provider": [name.value, None], "revokedAtProvider": [None, revoked]},
        )


cloud = CloudService()
