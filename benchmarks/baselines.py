"""Raw baselines: bare ASGI apps with asyncpg and orjson doing the same work as a route
(authenticate the session cookie, check membership, run the list query, serialise JSON)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from typing import Any

import asyncpg
import orjson

SECRET = os.environ.get("PLUMBLINE_SECRET_KEY", "benchmark-secret").encode()
_pool: asyncpg.Pool | None = None


def _unsign(cookie: str) -> str | None:
    value, _, signature = cookie.rpartition(".")
    mac = hmac.new(SECRET, f"session:{value}".encode(), hashlib.sha256).digest()
    expected = base64.urlsafe_b64encode(mac).decode().rstrip("=")
    return value if hmac.compare_digest(signature, expected) else None


def _cookie(scope: dict[str, Any]) -> str | None:
    for name, value in scope["headers"]:
        if name == b"cookie":
            for part in value.decode().split(";"):
                key, _, val = part.strip().partition("=")
                if key == "auth.session_token":
                    return val
    return None


async def _send(send: Any, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Any, send: Any) -> None:
    global _pool
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            _pool = await asyncpg.create_pool(os.environ["BENCH_DSN"], min_size=2, max_size=10)
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if _pool is not None:
                await _pool.close()
            await send({"type": "lifespan.shutdown.complete"})
            return


def _iso(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


async def projects_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """GET /workspaces/{id}/projects."""
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    parts = scope["path"].strip("/").split("/")
    if len(parts) != 3 or parts[0] != "workspaces":
        await _send(send, 200, b"{}")
        return
    token = _unsign(_cookie(scope) or "")
    if token is None or _pool is None:
        await _send(send, 401, b'{"error":"Unauthorized"}')
        return
    async with _pool.acquire() as conn:
        user_id = await conn.fetchval(
            "SELECT s.user_id FROM sessions s JOIN users u ON u.id = s.user_id "
            "WHERE s.token_hash = $1 AND s.expires_at > now()",
            hashlib.sha256(token.encode()).hexdigest(),
        )
        if user_id is None:
            await _send(send, 401, b'{"error":"Unauthorized"}')
            return
        rows = await conn.fetch(
            "SELECT p.id, p.workspace_id, p.name, p.stage, p.location, p.currency, p.start_date, "
            "p.end_date, p.project_number, p.timezone, p.operations_mode, p.created_at, p.updated_at "
            "FROM projects p JOIN memberships m ON m.workspace_id = p.workspace_id AND m.user_id = $2 "
            "WHERE p.workspace_id = $1 AND p.deleted_at IS NULL ORDER BY p.id DESC LIMIT 1001",
            parts[1],
            user_id,
        )
    body = orjson.dumps(
        [
            {
                "id": r["id"],
                "workspaceId": r["workspace_id"],
                "name": r["name"],
                "stage": r["stage"],
                "location": r["location"],
                "currency": r["currency"],
                "startDate": r["start_date"].isoformat() if r["start_date"] else None,
                "endDate": r["end_date"].isoformat() if r["end_date"] else None,
                "projectNumber": r["project_number"],
                "timezone": r["timezone"],
                "operationsMode": r["operations_mode"],
                "createdAt": _iso(r["created_at"]),
                "updatedAt": _iso(r["updated_at"]),
            }
            for r in rows
        ]
    )
    await _send(send, 200, body)
