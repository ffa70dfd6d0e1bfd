"""The drawing rule for CLIENT collaborators on every file and file-version route (PRODUCT §4,
docs/decisions.md): with ``showDrawings`` on they read everything and write nothing (403); with
it off a single file or version is hidden (404) and the project's files are refused (403).

The routes are read from the app, so a route added later without the rule fails here."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import httpx
import pytest
from fastapi import routing
from fastapi.routing import APIRoute

from plumbline.app import create_app
from tests.factories import World, add_member, create_project, create_user
from tests.file.helpers import PDF, presign, upload
from tests.viewer.helpers import EventStream

FILE_ROUTES = re.compile(r"^/api/v1/(files|file-versions|projects/\{projectId\}/files)(?![\w-])")
PARAMETER = re.compile(r"\{(\w+)\}")
# POSTs that only read: opening a file records lastOpenedAt; co-viewing is reading together.
READING_POSTS = ("/open", "/viewer-collab/heartbeat", "/viewer-collab/leave")
# Completing an upload names the upload, and only its starter can see it (decisions.md).
SOMEONE_ELSES_UPLOAD = ("POST", "/api/v1/files/complete-upload")
MIN_ROUTES = 18


def _file_routes() -> list[tuple[str, str]]:
    found = {
        (method, str(ctx.path))
        for ctx in routing.iter_route_contexts(create_app().routes)
        if isinstance(ctx.original_route, APIRoute) and FILE_ROUTES.match(str(ctx.path))
        for method in (ctx.original_route.methods or set()) - {"HEAD"}
    }
    return sorted(found, key=lambda route: (route[1], route[0]))


ROUTES = _file_routes()


def test_the_walk_finds_the_file_routes() -> None:
    assert len(ROUTES) >= MIN_ROUTES
    assert ("GET", "/api/v1/file-versions/{fileVersionId}/viewer-state") in ROUTES


def is_read(method: str, path: str) -> bool:
    return method == "GET" or (method == "POST" and path.endswith(READING_POSTS))


def names_one(path: str) -> bool:
    """A route about a single file or version (not the project's files)."""
    return bool({"fileId", "fileVersionId"} & set(PARAMETER.findall(path)))


def expected(method: str, path: str, *, shown: bool) -> int | None:
    """The status the rule gives a CLIENT; None for 'allowed' (any 2xx)."""
    if (method, path) == SOMEONE_ELSES_UPLOAD:
        return 404
    if not shown:
        return 404 if names_one(path) else 403
    return None if is_read(method, path) else 403


class Setting:
    """A project showing or hiding drawings, a file with one version and a CLIENT on it."""

    def __init__(self, world: World, shown: bool) -> None:
        self.world, self.shown = world, shown

    async def build(self, client: httpx.AsyncClient) -> None:
        flags = {"showDrawings": self.shown}
        self.project = await create_project(
            self.world.workspace, name="Client site", client_visibility=flags
        )
        self.client_user = await create_user(name="Cleo Client")
        await add_member(
            self.world.workspace,
            self.client_user,
            external_role="CLIENT",
            project_ids=[self.project.id],
        )
        done = await upload(client, self.world.member.headers, self.project.id, "A-1.pdf", PDF)
        self.file_id, self.version_id = done["id"], done["fileVersionId"]
        started = await presign(
            client, self.world.member.headers, self.project.id, "B-2.pdf", len(PDF)
        )
        self.upload_id = started.json()["uploadId"]

    def url(self, path: str) -> str:
        values = {
            "projectId": self.project.id,
            "fileId": self.file_id,
            "fileVersionId": self.version_id,
        }
        return PARAMETER.sub(lambda m: values[m.group(1)], path)

    def body(self, method: str, path: str, connection_id: str) -> dict[str, Any] | None:
        if path.endswith("/presign-upload"):
            return {
                "fileName": "C-3.pdf",
                "contentType": "application/pdf",
                "sizeBytes": len(PDF),
                "projectId": self.project.id,
            }
        if path.endswith("/complete-upload"):
            return {"uploadId": self.upload_id}
        if path.endswith(("/heartbeat", "/leave")):
            return {"connectionId": connection_id}
        if path.endswith("/viewer-state") and method == "PUT":
            return {"viewerState": {"markups": []}, "baseRevision": 0}
        if method == "PATCH":
            return {"name": "A-1 renamed.pdf"}
        return None


async def _connection(
    live: httpx.AsyncClient, stack: contextlib.AsyncExitStack, setting: Setting
) -> str:
    """A live co-viewing connection of the client (a dummy id when they cannot connect)."""
    url = setting.url("/api/v1/file-versions/{fileVersionId}/viewer-collab/events")
    stream = await stack.enter_async_context(EventStream(live, url, setting.client_user.headers))
    assert stream.response is not None
    if stream.response.status_code != 200:
        return "x"
    hello = await stream.next()
    assert hello is not None and hello[0] == "hello"
    return str(hello[1]["connectionId"])


async def _status(
    client: httpx.AsyncClient,
    live: httpx.AsyncClient,
    stack: contextlib.AsyncExitStack,
    setting: Setting,
    method: str,
    path: str,
) -> tuple[int, dict[str, Any] | None]:
    headers = setting.client_user.headers
    if path.endswith("/viewer-collab/events"):
        async with live.stream("GET", setting.url(path), headers=headers) as response:
            if response.status_code == 200:
                return 200, None
            await response.aread()
            return response.status_code, response.json()
    connection_id = await _connection(live, stack, setting)
    response = await client.request(
        method,
        setting.url(path),
        json=setting.body(method, path, connection_id),
        headers=headers,
    )
    body = response.json() if response.headers.get("content-type") == "application/json" else None
    return response.status_code, body


@pytest.mark.parametrize("shown", [True, False], ids=["drawings-shown", "drawings-hidden"])
async def test_clients_follow_the_drawing_rule_on_every_file_route(
    client: httpx.AsyncClient, live: httpx.AsyncClient, world: World, shown: bool
) -> None:
    setting = Setting(world, shown)
    await setting.build(client)
    wrong = []
    async with contextlib.AsyncExitStack() as stack:
        for method, path in ROUTES:
            status, body = await _status(client, live, stack, setting, method, path)
            want = expected(method, path, shown=shown)
            allowed = want is None and 200 <= status < 300
            refused = want is not None and status == want
            code = {403: "FORBIDDEN", 404: "NOT_FOUND"}.get(status)
            if not (allowed or (refused and body is not None and body["code"] == code)):
                wrong.append(f"{method} {path}: {status} {body} (expected {want or '2xx'})")
    assert wrong == []
