"""One call of the sweep: a caller's credentials, and a raw ASGI call for the one streaming
route (Server-Sent Events), which answers its status and is then disconnected."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson

from tests.conftest import ORIGIN

SSE_WAIT = 15  # seconds: a safety bound, never a timed assertion


@dataclass(frozen=True)
class Answer:
    status: int
    code: str | None = None
    error: str | None = None

    @classmethod
    def of(cls, status: int, body: bytes) -> Answer:
        if status < 400:
            return cls(status)
        try:
            found = orjson.loads(body)
        except orjson.JSONDecodeError:
            return cls(status)
        if not isinstance(found, dict):
            return cls(status)
        return cls(status, found.get("code"), found.get("error"))


async def stream_status(app: Any, method: str, url: str, headers: dict[str, str]) -> Answer:
    """The status of a streaming response: the request is sent, the response's start read,
    then the client disconnects (so the stream ends)."""
    parts = urlsplit(url)
    started = asyncio.Event()
    found: dict[str, Any] = {}
    sent_body = False
    all_headers = {"origin": ORIGIN, "host": "127.0.0.1:8000", **headers}
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": parts.path,
        "raw_path": parts.path.encode(),
        "query_string": parts.query.encode(),
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in all_headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await started.wait()
        return {"type": "http.disconnect"}

    body = bytearray()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            found["status"] = message["status"]
            started.set()
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    task = asyncio.ensure_future(app(scope, receive, send))
    try:
        await asyncio.wait_for(started.wait(), SSE_WAIT)
        await asyncio.wait_for(task, SSE_WAIT)
    finally:
        if not task.done():
            task.cancel()
    return Answer.of(found["status"], bytes(body))
