"""Viewer test helpers: file-version rows written straight to the database, an SSE reader, and
live servers (in this process, or separate uvicorn processes)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import uvicorn
from sqlalchemy import update

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import File, FileVersion, Project, User
from tests.live import STARTUP, free_port

ORIGIN = "http://127.0.0.1:8000"
WAIT = 15  # seconds: a safety bound on every wait, never a timed assertion


async def create_file_version(
    project: Project, *, created_by: str | None = None, name: str = "A-101.pdf"
) -> FileVersion:
    async with database.sessionmaker() as db:
        now = clock.now()
        file = File(
            project_id=project.id,
            workspace_id=project.workspace_id,
            name=name,
            normalized_name=name.lower(),
            current_version=1,
            version_seq=1,
            created_by=created_by,
            created_at=now,
            updated_at=now,
        )
        db.add(file)
        await db.flush()
        version = FileVersion(
            file_id=file.id,
            project_id=project.id,
            workspace_id=project.workspace_id,
            version=1,
            storage_key=f"ws/{project.workspace_id}/p/{project.id}/files/{file.id}/u/{name}",
            size_bytes=1024,
            content_type="application/pdf",
            created_by=created_by,
            created_at=now,
        )
        db.add(version)
        await db.flush()
        file.latest_version_id = version.id
        await db.commit()
        return version


async def delete_version(version: FileVersion, *, whole_file: bool = False) -> None:
    async with database.sessionmaker() as db:
        if whole_file:
            await db.execute(
                update(File).where(File.id == version.file_id).values(deleted_at=clock.now())
            )
        else:
            await db.execute(
                update(FileVersion)
                .where(FileVersion.id == version.id)
                .values(deleted_at=clock.now())
            )
        await db.commit()


async def set_presence_hidden(user_id: str, hidden: bool = True) -> None:
    async with database.sessionmaker() as db:
        await db.execute(update(User).where(User.id == user_id).values(presence_hidden=hidden))
        await db.commit()


async def set_project_modules(project: Project, modules: dict[str, bool]) -> None:
    async with database.sessionmaker() as db:
        await db.execute(update(Project).where(Project.id == project.id).values(modules=modules))
        await db.commit()


class EventStream:
    """One SSE connection read event by event (``event:``/``data:`` blocks)."""

    def __init__(self, client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> None:
        self._context = client.stream("GET", url, headers=headers)
        self.response: httpx.Response | None = None
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self._lines: AsyncIterator[str] | None = None

    async def __aenter__(self) -> EventStream:
        async with asyncio.timeout(WAIT):
            self.response = await self._context.__aenter__()
        self._lines = self.response.aiter_lines()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._context.__aexit__(*exc)

    async def next(self) -> tuple[str, dict[str, Any]] | None:
        """The next event, or None when the server ended the stream."""
        assert self._lines is not None
        name, data = "message", b""
        async with asyncio.timeout(WAIT):
            async for line in self._lines:
                if line == "":
                    if data:
                        event = (name, orjson.loads(data))
                        self.seen.append(event)
                        return event
                    continue
                field, _, value = line.partition(": ")
                if field == "event":
                    name = value
                elif field == "data":
                    data += value.encode()
        return None

    async def expect(self, name: str, where: Any = None) -> dict[str, Any]:
        """Skip events until one named ``name`` (whose data satisfies ``where``) arrives."""
        while True:
            event = await self.next()
            assert event is not None, f"stream ended while waiting for {name}; saw {self.seen}"
            if event[0] == name and (where is None or where(event[1])):
                return event[1]

    async def until_closed(self) -> list[str]:
        """Read to the end of the stream; the names of the events received meanwhile."""
        names = []
        while (event := await self.next()) is not None:
            names.append(event[0])
        return names


def members(presence: dict[str, Any]) -> set[str]:
    return {m["userId"] for m in presence["members"]}


@contextlib.asynccontextmanager
async def in_process_server(app: Any) -> AsyncIterator[str]:
    """uvicorn serving the test app on a real socket, in this event loop (the test's clock,
    database and rate limits apply)."""
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", access_log=False
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(WAIT):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        async with asyncio.timeout(WAIT):
            await task


@contextlib.asynccontextmanager
async def server_process(env: dict[str, str] | None = None) -> AsyncIterator[str]:
    """``uvicorn plumbline.app:create_app --factory`` in a separate process, with this test
    run's database settings (and ``env`` on top)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "uvicorn",
        "plumbline.app:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        env={**os.environ, **(env or {})},
    )
    try:
        async with asyncio.timeout(STARTUP), httpx.AsyncClient() as probe:
            while True:
                if process.returncode is not None:
                    raise RuntimeError("the server process exited")
                try:
                    if (await probe.get(f"{url}/api/v1/health")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
        yield url
    finally:
        if process.returncode is None:
            process.terminate()
        try:
            async with asyncio.timeout(WAIT):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()


def live_client(url: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=url, headers={"Origin": ORIGIN}, timeout=httpx.Timeout(WAIT, read=None)
    )
