"""The three providers (Drive, OneDrive, Dropbox): their OAuth settings and file APIs.

Each in its own shapes (Drive v3 files, Microsoft Graph drive items, Dropbox v2 files). Every
call goes through the connection's Authlib client, which adds the bearer token (refreshed by
``cloud.oauth``).
"""

from __future__ import annotations

import json
import mimetypes
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import quote

import httpx
import orjson

from plumbline.cloud.client import AsyncOAuth2Client
from plumbline.cloud.errors import ItemNotFound, ProviderUnavailable, ReconnectRequired
from plumbline.config import settings

PAGE_SIZE = 100
GOOGLE_FOLDER = "application/vnd.google-apps.folder"


class ProviderName(StrEnum):
    GOOGLE = "google"
    MICROSOFT = "microsoft"
    DROPBOX = "dropbox"


@dataclass(frozen=True)
class Endpoints:
    client_id: str
    client_secret: str
    auth_url: str
    token_url: str


@dataclass(frozen=True)
class Account:
    id: str | None
    email: str | None
    name: str | None


@dataclass(frozen=True)
class Item:
    id: str
    name: str
    kind: str  # "file" or "folder"
    mime_type: str | None
    size_bytes: int | None

    def read(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "mimeType": self.mime_type,
            "sizeBytes": self.size_bytes,
        }


def guess_type(name: str) -> str | None:
    return mimetypes.guess_type(name, strict=False)[0]


def check(response: httpx.Response) -> httpx.Response:
    """The provider's answer as ours: 401 (tokens refused) asks to reconnect, 404 is the item,
    anything else that failed is the provider's fault (502)."""
    if response.status_code == 401:
        raise ReconnectRequired()
    if response.status_code == 404:
        raise ItemNotFound()
    if response.status_code >= 400:
        raise ProviderUnavailable(providerStatus=response.status_code)
    return response


def body(response: httpx.Response) -> dict[str, Any]:
    try:
        data = orjson.loads(check(response).content)
    except orjson.JSONDecodeError:
        raise ProviderUnavailable(
            "The cloud-storage provider answered something unreadable"
        ) from None
    if not isinstance(data, dict):
        raise ProviderUnavailable("The cloud-storage provider answered something unreadable")
    return data


class Provider(ABC):
    """One provider's OAuth settings and file API (Google, Microsoft and Dropbox below)."""

    name: ProviderName
    label: str
    scope: str
    authorize_params: dict[str, str] = {}

    def endpoints(self) -> Endpoints | None:
        """The configured endpoints; None when the server has no client id for it (503)."""
        prefix = self.name.value
        client_id = getattr(settings, f"{prefix}_client_id")
        secret = getattr(settings, f"{prefix}_client_secret")
        if not client_id:
            return None
        return Endpoints(
            client_id=client_id,
            client_secret=secret.get_secret_value() if secret else "",
            auth_url=getattr(settings, f"{prefix}_auth_url"),
            token_url=getattr(settings, f"{prefix}_token_url"),
        )

    @property
    def api(self) -> str:
        return str(getattr(settings, f"{self.name.value}_api_url")).rstrip("/")

    @abstractmethod
    async def account(self, http: AsyncOAuth2Client) -> Account: ...

    @abstractmethod
    async def browse(
        self, http: AsyncOAuth2Client, folder_id: str | None, page_token: str | None
    ) -> tuple[list[Item], str | None]: ...

    @abstractmethod
    async def item(self, http: AsyncOAuth2Client, item_id: str) -> Item: ...

    @abstractmethod
    def download(
        self, http: AsyncOAuth2Client, item_id: str
    ) -> AbstractAsyncContextManager[httpx.Response]:
        """The file's bytes, as a response to stream (checked by the caller)."""

    @abstractmethod
    async def link(self, http: AsyncOAuth2Client, item_id: str) -> str: ...

    @abstractmethod
    async def revoke(self, http: AsyncOAuth2Client, access: str, refresh: str | None) -> bool:
        """Revoke the grant at the provider; False when the provider has no way to."""


class Google(Provider):
    name = ProviderName.GOOGLE
    label = "Google Drive"
    scope = "https://www.googleapis.com/auth/drive.readonly"
    # offline: a refresh token; consent: Google sends it again on a reconnection
    authorize_params = {"access_type": "offline", "prompt": "consent"}
    FIELDS = "id,name,mimeType,size"

    def _item(self, data: dict[str, Any]) -> Item:
        mime = data.get("mimeType")
        size = data.get("size")
        return Item(
            id=str(data["id"]),
            name=str(data.get("name") or data["id"]),
            kind="folder" if mime == GOOGLE_FOLDER else "file",
            mime_type=mime,
            size_bytes=int(size) if size is not None else None,
        )

    async def account(self, http: AsyncOAuth2Client) -> Account:
        data = body(
            await http.get(
                f"{self.api}/drive/v3/about",
                params={"fields": "user(displayName,emailAddress,permissionId)"},
            )
        )
        user = data.get("user") or {}
        return Account(user.get("permissionId"), user.get("emailAddress"), user.get("displayName"))

    async def browse(
        self, http: AsyncOAuth2Client, folder_id: str | None, page_token: str | None
    ) -> tuple[list[Item], str | None]:
        folder = (folder_id or "root").replace("\\", "\\\\").replace("'", "\\'")
        params = {
            "q": f"'{folder}' in parents and trashed = false",
            "pageSize": str(PAGE_SIZE),
            "fields": f"nextPageToken,files({self.FIELDS})",
            "orderBy": "folder,name",
        }
        if page_token:
            params["pageToken"] = page_token
        data = body(await http.get(f"{self.api}/drive/v3/files", params=params))
        return [self._item(f) for f in data.get("files", [])], data.get("nextPageToken")

    async def item(self, http: AsyncOAuth2Client, item_id: str) -> Item:
        url = f"{self.api}/drive/v3/files/{_segment(item_id)}"
        return self._item(body(await http.get(url, params={"fields": self.FIELDS})))

    @asynccontextmanager
    async def download(
        self, http: AsyncOAuth2Client, item_id: str
    ) -> AsyncIterator[httpx.Response]:
        url = f"{self.api}/drive/v3/files/{_segment(item_id)}"
        async with http.stream("GET", url, params={"alt": "media"}) as response:
            yield response

    async def link(self, http: AsyncOAuth2Client, item_id: str) -> str:
        url = f"{self.api}/drive/v3/files/{_segment(item_id)}"
        data = body(await http.get(url, params={"fields": "webViewLink"}))
        return _url(data.get("webViewLink"))

    async def revoke(self, http: AsyncOAuth2Client, access: str, refresh: str | None) -> bool:
        # RFC 7009; revoking the refresh token ends the whole grant
        response = await http.revoke_token(
            settings.google_revoke_url,
            token=refresh or access,
            token_type_hint="refresh_token" if refresh else "access_token",
        )
        if response.status_code != 400:  # 400 invalid_token: already revoked or expired
            check(response)
        return True


class Microsoft(Provider):
    name = ProviderName.MICROSOFT
    label = "Microsoft OneDrive"
    scope = "offline_access User.Read Files.Read"
    SELECT = "id,name,size,file,folder"

    def _item(self, data: dict[str, Any]) -> Item:
        is_folder = "folder" in data
        size = data.get("size")
        return Item(
            id=str(data["id"]),
            name=str(data.get("name") or data["id"]),
            kind="folder" if is_folder else "file",
            mime_type=None if is_folder else (data.get("file") or {}).get("mimeType"),
            size_bytes=int(size) if size is not None and not is_folder else None,
        )

    async def account(self, http: AsyncOAuth2Client) -> Account:
        data = body(
            await http.get(
                f"{self.api}/me", params={"$select": "id,displayName,mail,userPrincipalName"}
            )
        )
        return Account(
            data.get("id"),
            data.get("mail") or data.get("userPrincipalName"),
            data.get("displayName"),
        )

    async def browse(
        self, http: AsyncOAuth2Client, folder_id: str | None, page_token: str | None
    ) -> tuple[list[Item], str | None]:
        if page_token:
            # @odata.nextLink is a whole URL: only ever follow it on the configured API host,
            # where the bearer token may go
            if not page_token.startswith(f"{self.api}/"):
                raise ItemNotFound("This page of the folder is not available")
            response = await http.get(page_token)
        else:
            path = (
                f"/me/drive/items/{_segment(folder_id)}/children"
                if folder_id
                else "/me/drive/root/children"
            )
            response = await http.get(
                f"{self.api}{path}", params={"$top": str(PAGE_SIZE), "$select": self.SELECT}
            )
        data = body(response)
        return [self._item(v) for v in data.get("value", [])], data.get("@odata.nextLink")

    async def item(self, http: AsyncOAuth2Client, item_id: str) -> Item:
        url = f"{self.api}/me/drive/items/{_segment(item_id)}"
        return self._item(body(await http.get(url, params={"$select": self.SELECT})))

    @asynccontextmanager
    async def download(
        self, http: AsyncOAuth2Client, item_id: str
    ) -> AsyncIterator[httpx.Response]:
        # Graph answers 302 to a pre-authenticated download URL, fetched without our token
        url = f"{self.api}/me/drive/items/{_segment(item_id)}/content"
        async with http.stream("GET", url) as response:
            location = response.headers.get("location")
            if response.status_code not in (301, 302, 303, 307, 308) or not location:
                yield response
                return
        target = response.url.join(location)
        async with http.stream("GET", target, withhold_token=True) as response:
            yield response

    async def link(self, http: AsyncOAuth2Client, item_id: str) -> str:
        url = f"{self.api}/me/drive/items/{_segment(item_id)}"
        return _url(body(await http.get(url, params={"$select": "webUrl"})).get("webUrl"))

    async def revoke(self, http: AsyncOAuth2Client, access: str, refresh: str | None) -> bool:
        # The Microsoft identity platform has no revocation endpoint for one app's grant
        # (docs/decisions.md): the tokens are forgotten; the user removes the app's consent at
        # https://myapps.microsoft.com.
        return False


class Dropbox(Provider):
    name = ProviderName.DROPBOX
    label = "Dropbox"
    scope = "account_info.read files.metadata.read files.content.read"
    authorize_params = {"token_access_type": "offline"}

    @property
    def content(self) -> str:
        return settings.dropbox_content_url.rstrip("/")

    def _item(self, data: dict[str, Any]) -> Item:
        is_folder = data.get(".tag") == "folder"
        name = str(data.get("name") or data.get("id"))
        size = data.get("size")
        return Item(
            id=str(data.get("id") or data.get("path_lower")),
            name=name,
            kind="folder" if is_folder else "file",
            mime_type=None if is_folder else guess_type(name),
            size_bytes=int(size) if size is not None and not is_folder else None,
        )

    async def _rpc(self, http: AsyncOAuth2Client, route: str, args: Any) -> dict[str, Any]:
        response = await http.post(
            f"{self.api}/2/{route}",
            content=orjson.dumps(args),
            headers={"Content-Type": "application/json"},
        )
        if response.status_code == 409:  # an endpoint error: path/not_found, malformed_path...
            raise ItemNotFound()
        return body(response)

    async def account(self, http: AsyncOAuth2Client) -> Account:
        data = await self._rpc(http, "users/get_current_account", None)
        return Account(
            data.get("account_id"), data.get("email"), (data.get("name") or {}).get("display_name")
        )

    async def browse(
        self, http: AsyncOAuth2Client, folder_id: str | None, page_token: str | None
    ) -> tuple[list[Item], str | None]:
        if page_token:
            data = await self._rpc(http, "files/list_folder/continue", {"cursor": page_token})
        else:
            args = {"path": folder_id or "", "limit": PAGE_SIZE}
            data = await self._rpc(http, "files/list_folder", args)
        items = [
            self._item(e) for e in data.get("entries", []) if e.get(".tag") in ("file", "folder")
        ]
        return items, data.get("cursor") if data.get("has_more") else None

    async def item(self, http: AsyncOAuth2Client, item_id: str) -> Item:
        return self._item(await self._rpc(http, "files/get_metadata", {"path": item_id}))

    @asynccontextmanager
    async def download(
        self, http: AsyncOAuth2Client, item_id: str
    ) -> AsyncIterator[httpx.Response]:
        # the header must be ASCII: json escapes the rest
        arg = json.dumps({"path": item_id})
        async with http.stream(
            "POST", f"{self.content}/2/files/download", headers={"Dropbox-API-Arg": arg}
        ) as response:
            if response.status_code == 409:
                raise ItemNotFound()
            yield response

    async def link(self, http: AsyncOAuth2Client, item_id: str) -> str:
        # A temporary link (4 hours) rather than a shared link, which would change who can
        # see the file (docs/decisions.md)
        return _url(
            (await self._rpc(http, "files/get_temporary_link", {"path": item_id})).get("link")
        )

    async def revoke(self, http: AsyncOAuth2Client, access: str, refresh: str | None) -> bool:
        response = await http.post(f"{self.api}/2/auth/token/revoke")
        if response.status_code != 401:  # 401: the token is already gone
            check(response)
        return True


def _segment(value: str | None) -> str:
    """An id as one URL path segment."""
    return quote(value or "", safe="")


def _url(value: Any) -> str:
    if not isinstance(value, str) or not value.startswith(("https://", "http://")):
        raise ProviderUnavailable("The cloud-storage provider did not give a link")
    return value


PROVIDERS: dict[ProviderName, Provider] = {p.name: p for p in (Google(), Microsoft(), Dropbox())}
