"""A stand-in for Google, Microsoft and Dropbox on 127.0.0.1, speaking each one's real shapes:
OAuth 2.0 authorization (code + PKCE S256, checked at the token endpoint), refresh and
revocation; Drive v3 files, Microsoft Graph drive items, Dropbox v2 files. Runs uvicorn in a
thread; the tests read and steer its state (tokens issued, refreshes, revocations)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.live import STARTUP, free_port

CLIENT_ID = "standin-client"
CLIENT_SECRET = "standin-secret"
PAGE = 2  # providers may answer fewer items than asked: paging shows at three files
CHUNK = 64 * 1024
BIG = 50 * 1024 * 1024
_BLOCK = bytes(range(256)) * (CHUNK // 256)


def big_chunks(size: int = BIG) -> Iterator[bytes]:
    """The big file's bytes, the same block over and over (nothing held but one block)."""
    yield b"%PDF-1.7\n"
    left = size - 9
    while left > 0:
        piece = _BLOCK if left >= CHUNK else _BLOCK[:left]
        left -= len(piece)
        yield piece


def big_sha256(size: int = BIG) -> str:
    hasher = hashlib.sha256()
    for chunk in big_chunks(size):
        hasher.update(chunk)
    return hasher.hexdigest()


SMALL = b"%PDF-1.7\nsmall drawing\n%%EOF\n"


@dataclass
class Node:
    id: str
    name: str
    folder: bool = False
    parent: str = "root"
    size: int = 0
    mime: str = "application/pdf"

    def content(self) -> Iterator[bytes]:
        return big_chunks(self.size) if self.size == BIG else iter([SMALL])


TREE = [
    Node("fld-drawings", "Drawings", folder=True),
    Node("file-a", "A-101.pdf", size=len(SMALL)),
    Node("file-b", "A-102.pdf", size=len(SMALL)),
    Node("file-big", "Site model.pdf", size=BIG),
    Node("file-exe", "setup.exe", size=len(SMALL), mime="application/x-msdownload"),
    Node("file-c", "S-201.pdf", parent="fld-drawings", size=len(SMALL)),
    Node("gdoc", "Minutes", mime="application/vnd.google-apps.document"),
]
NODES = {n.id: n for n in TREE}


@dataclass
class Grant:
    provider: str
    refresh: str
    revoked: bool = False


@dataclass
class State:
    expires_in: int = 3600  # what the next tokens are issued with
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    access: dict[str, tuple[str, float]] = field(default_factory=dict)  # token -> refresh, expiry
    grants: dict[str, Grant] = field(default_factory=dict)  # refresh token -> grant
    token_requests: list[dict[str, str]] = field(default_factory=list)
    api_tokens: list[str] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)

    def issue(self, provider: str, refresh: str | None = None) -> dict[str, Any]:
        refresh = refresh or f"{provider}-refresh-{secrets.token_hex(12)}"
        self.grants.setdefault(refresh, Grant(provider, refresh))
        access = f"{provider}-access-{secrets.token_hex(12)}"
        self.access[access] = (refresh, time.time() + self.expires_in)
        token = {"access_token": access, "token_type": "Bearer", "expires_in": self.expires_in}
        token["refresh_token"] = refresh
        return token

    def revoke_refresh(self, refresh: str) -> None:
        self.grants[refresh].revoked = True


class StandIn:
    def __init__(self) -> None:
        self.state = State()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    def settings(self) -> dict[str, str]:
        """The app's configuration pointing every provider at the stand-in."""
        values: dict[str, str] = {}
        for p in ("google", "microsoft", "dropbox"):
            values[f"{p}_client_id"] = CLIENT_ID
            values[f"{p}_auth_url"] = f"{self.url}/{p}/authorize"
            values[f"{p}_token_url"] = f"{self.url}/{p}/token"
        values["google_api_url"] = f"{self.url}/google"
        values["google_revoke_url"] = f"{self.url}/google/revoke"
        values["microsoft_api_url"] = f"{self.url}/graph/v1.0"
        values["dropbox_api_url"] = f"{self.url}/dropbox-api"
        values["dropbox_content_url"] = f"{self.url}/dropbox-content"
        return values

    def start(self) -> StandIn:
        config = uvicorn.Config(
            app(self.state), host="127.0.0.1", port=self.port, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + STARTUP
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the stand-in provider did not start")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.server is not None and self.thread is not None:
            self.server.should_exit = True
            self.thread.join(timeout=30)


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def app(state: State) -> Starlette:
    def bearer(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        token = header.removeprefix("Bearer ")
        found = state.access.get(token)
        if not header.startswith("Bearer ") or found is None:
            return None
        refresh, expiry = found
        if expiry < time.time() or state.grants[refresh].revoked:
            return None
        state.api_tokens.append(token)
        return token

    def unauthorized() -> JSONResponse:
        return JSONResponse({"error": {"code": "InvalidAuthenticationToken"}}, status_code=401)

    async def authorize(request: Request) -> Response:
        """The user approves at once: back to redirect_uri with a code bound to the challenge."""
        q = request.query_params
        if q.get("client_id") != CLIENT_ID or q.get("code_challenge_method") != "S256":
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        code = secrets.token_hex(8)
        state.codes[code] = {
            "provider": request.path_params["provider"],
            "challenge": q["code_challenge"],
            "redirect_uri": q["redirect_uri"],
            "scope": q.get("scope", ""),
        }
        target = f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q['state']})}"
        return RedirectResponse(target, status_code=302)

    async def token(request: Request) -> Response:
        provider = request.path_params["provider"]
        form = dict(parse_qsl((await request.body()).decode()))
        state.token_requests.append({**form, "provider": provider})
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if form.get("grant_type") == "authorization_code":
            code = state.codes.pop(form.get("code", ""), None)
            if (
                code is None
                or code["provider"] != provider
                or code["redirect_uri"] != form.get("redirect_uri")
                or _s256(form.get("code_verifier", "")) != code["challenge"]
            ):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            return JSONResponse(state.issue(provider))
        if form.get("grant_type") == "refresh_token":
            grant = state.grants.get(form.get("refresh_token", ""))
            if grant is None or grant.revoked or grant.provider != provider:
                return JSONResponse(
                    {"error": "invalid_grant", "error_description": "Token has been revoked."},
                    status_code=400,
                )
            issued = state.issue(provider, grant.refresh)
            if provider in ("google", "dropbox"):  # they do not send the refresh token again
                issued.pop("refresh_token")
            return JSONResponse(issued)
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)

    def stream(node: Node) -> StreamingResponse:
        async def body() -> AsyncIterator[bytes]:
            for chunk in node.content():
                yield chunk

        return StreamingResponse(
            body(),
            media_type="application/octet-stream",
            headers={"Content-Length": str(node.size)},
        )

    def page(items: list[Node], start: int) -> tuple[list[Node], int | None]:
        chunk = items[start : start + PAGE]
        return chunk, (start + PAGE if start + PAGE < len(items) else None)

    def children(folder: str) -> list[Node]:
        return [n for n in TREE if n.parent == folder]

    # ---- Google Drive v3

    def g_file(n: Node) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": n.id,
            "name": n.name,
            "mimeType": "application/vnd.google-apps.folder" if n.folder else n.mime,
        }
        if not n.folder and not n.mime.startswith("application/vnd.google-apps."):
            data["size"] = str(n.size)  # Drive sends int64 as a string
        return data

    async def g_about(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        user = {
            "displayName": "Gina Google",
            "emailAddress": "gina@example.com",
            "permissionId": "g1",
        }
        return JSONResponse({"user": user})

    async def g_files(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        q = request.query_params.get("q", "")
        folder = q.split("'")[1] if q.count("'") >= 2 else "root"
        start = int(request.query_params.get("pageToken") or 0)
        items, nxt = page(children(folder), start)
        data: dict[str, Any] = {"kind": "drive#fileList", "files": [g_file(n) for n in items]}
        if nxt is not None:
            data["nextPageToken"] = str(nxt)
        return JSONResponse(data)

    async def g_file_get(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        if request.path_params["id"] == "boom":
            return JSONResponse({"error": {"code": 500}}, status_code=500)
        node = NODES.get(request.path_params["id"])
        if node is None:
            return JSONResponse(
                {"error": {"code": 404, "message": "File not found"}}, status_code=404
            )
        if request.query_params.get("alt") == "media":
            return stream(node)
        data = g_file(node)
        data["webViewLink"] = f"https://drive.google.com/file/d/{node.id}/view"
        return JSONResponse(data)

    async def g_revoke(request: Request) -> Response:
        token_value = dict(parse_qsl((await request.body()).decode())).get("token", "")
        grant = state.grants.get(token_value)
        if grant is None:
            return JSONResponse({"error": "invalid_token"}, status_code=400)
        grant.revoked = True
        state.revoked.append(token_value)
        return Response(status_code=200)

    # ---- Microsoft Graph

    def m_item(n: Node) -> dict[str, Any]:
        data: dict[str, Any] = {"id": n.id, "name": n.name}
        if n.folder:
            data["folder"] = {"childCount": len(children(n.id))}
        else:
            data["size"] = n.size
            data["file"] = {"mimeType": n.mime}
        data["webUrl"] = f"https://onedrive.live.com/?id={n.id}"
        return data

    async def m_me(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        return JSONResponse(
            {
                "id": "m1",
                "displayName": "Mo Microsoft",
                "mail": None,
                "userPrincipalName": "mo@example.com",
            }
        )

    async def m_children(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        folder = request.path_params.get("id", "root")
        if folder != "root" and folder not in NODES:
            return JSONResponse({"error": {"code": "itemNotFound"}}, status_code=404)
        start = int(request.query_params.get("$skiptoken") or 0)
        items, nxt = page(children(folder), start)
        data: dict[str, Any] = {"value": [m_item(n) for n in items]}
        if nxt is not None:
            base = str(request.url).split("?")[0]
            data["@odata.nextLink"] = f"{base}?$top=2&$skiptoken={nxt}"
        return JSONResponse(data)

    async def m_item_get(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        node = NODES.get(request.path_params["id"])
        if node is None:
            return JSONResponse({"error": {"code": "itemNotFound"}}, status_code=404)
        return JSONResponse(m_item(node))

    async def m_content(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        node = NODES.get(request.path_params["id"])
        if node is None:
            return JSONResponse({"error": {"code": "itemNotFound"}}, status_code=404)
        # Graph redirects to a pre-authenticated URL, which needs no token
        return RedirectResponse(f"/graph-download/{node.id}", status_code=302)

    async def m_download(request: Request) -> Response:
        if request.headers.get("authorization"):
            return JSONResponse(
                {"error": "a pre-authenticated URL takes no token"}, status_code=400
            )
        return stream(NODES[request.path_params["id"]])

    # ---- Dropbox v2

    def d_entry(n: Node) -> dict[str, Any]:
        if n.folder:
            return {
                ".tag": "folder",
                "id": f"id:{n.id}",
                "name": n.name,
                "path_lower": f"/{n.name.lower()}",
            }
        return {
            ".tag": "file",
            "id": f"id:{n.id}",
            "name": n.name,
            "size": n.size,
            "path_lower": f"/{n.name.lower()}",
        }

    def d_node(path: str) -> Node | None:
        return NODES.get(path.removeprefix("id:"))

    async def d_args(request: Request) -> Any:
        if request.headers.get("content-type") != "application/json":
            return None
        return json.loads(await request.body())

    def d_error(summary: str) -> JSONResponse:
        return JSONResponse({"error_summary": summary, "error": {".tag": "path"}}, status_code=409)

    async def d_account(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        return JSONResponse(
            {
                "account_id": "dbid:d1",
                "email": "dee@example.com",
                "name": {"display_name": "Dee Dropbox"},
            }
        )

    async def d_list(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        args = await d_args(request)
        path = args["path"]
        folder = "root" if path == "" else (d_node(path).id if d_node(path) else None)
        if folder is None:
            return d_error("path/not_found/")
        return d_page(folder, 0)

    def d_page(folder: str, start: int) -> JSONResponse:
        items, nxt = page(children(folder), start)
        cursor = base64.urlsafe_b64encode(f"{folder}:{nxt or 0}".encode()).decode()
        return JSONResponse(
            {"entries": [d_entry(n) for n in items], "cursor": cursor, "has_more": nxt is not None}
        )

    async def d_continue(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        folder, start = (
            base64.urlsafe_b64decode((await d_args(request))["cursor"]).decode().split(":")
        )
        return d_page(folder, int(start))

    async def d_metadata(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        node = d_node((await d_args(request))["path"])
        return JSONResponse(d_entry(node)) if node else d_error("path/not_found/")

    async def d_temporary_link(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        node = d_node((await d_args(request))["path"])
        if node is None:
            return d_error("path/not_found/")
        return JSONResponse(
            {"metadata": d_entry(node), "link": f"https://dl.dropboxusercontent.com/{node.id}"}
        )

    async def d_download(request: Request) -> Response:
        if not bearer(request):
            return unauthorized()
        node = d_node(json.loads(request.headers["dropbox-api-arg"])["path"])
        if node is None:
            return d_error("path/not_found/")
        return stream(node)

    async def d_revoke(request: Request) -> Response:
        token_value = bearer(request)
        if not token_value:
            return unauthorized()
        refresh, _ = state.access[token_value]
        state.grants[refresh].revoked = True
        state.revoked.append(refresh)
        return JSONResponse(None)

    return Starlette(
        routes=[
            Route("/{provider}/authorize", authorize),
            Route("/{provider}/token", token, methods=["POST"]),
            Route("/google/drive/v3/about", g_about),
            Route("/google/drive/v3/files", g_files),
            Route("/google/drive/v3/files/{id}", g_file_get),
            Route("/google/revoke", g_revoke, methods=["POST"]),
            Route("/graph/v1.0/me", m_me),
            Route("/graph/v1.0/me/drive/root/children", m_children),
            Route("/graph/v1.0/me/drive/items/{id}/children", m_children),
            Route("/graph/v1.0/me/drive/items/{id}", m_item_get),
            Route("/graph/v1.0/me/drive/items/{id}/content", m_content),
            Route("/graph-download/{id}", m_download),
            Route("/dropbox-api/2/users/get_current_account", d_account, methods=["POST"]),
            Route("/dropbox-api/2/files/list_folder", d_list, methods=["POST"]),
            Route("/dropbox-api/2/files/list_folder/continue", d_continue, methods=["POST"]),
            Route("/dropbox-api/2/files/get_metadata", d_metadata, methods=["POST"]),
            Route("/dropbox-api/2/files/get_temporary_link", d_temporary_link, methods=["POST"]),
            Route("/dropbox-api/2/auth/token/revoke", d_revoke, methods=["POST"]),
            Route("/dropbox-content/2/files/download", d_download, methods=["POST"]),
        ]
    )


@contextlib.contextmanager
def providers_env() -> Iterator[dict[str, str]]:
    """A running stand-in and the environment that points a server process's three
    connectors at it (for live-server tests: a configured provider, not 503)."""
    server = StandIn().start()
    try:
        env = {f"PLUMBLINE_{k.upper()}": v for k, v in server.settings().items()}
        for provider in ("GOOGLE", "MICROSOFT", "DROPBOX"):
            env[f"PLUMBLINE_{provider}_CLIENT_SECRET"] = CLIENT_SECRET
        yield env
    finally:
        server.stop()
