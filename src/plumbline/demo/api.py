"""The demo's client (the app over ASGI as the demo user) and the dates its bodies use."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx

from plumbline.config import settings
from plumbline.kit import clock


class DemoFailed(RuntimeError):
    """The app refused a demo request (the message names it)."""


class Api:
    """The app over ASGI as the signed-in demo user; any answer >= 400 raises DemoFailed."""

    def __init__(self, client: httpx.AsyncClient, user_id: str) -> None:
        self.client, self.user_id = client, user_id

    async def __call__(self, method: str, path: str, **kwargs: Any) -> Any:
        answer = await self.client.request(method, path, **kwargs)
        if answer.status_code >= 400:
            raise DemoFailed(f"{method} {path}: {answer.status_code} {answer.text}")
        return answer.json()

    async def upload(self, project_id: str, name: str, data: bytes, **extra: Any) -> Any:
        """Presign, PUT the bytes where the storage backend says, complete: as a client does."""
        target = await self(
            "POST",
            "/api/v1/files/presign-upload",
            json={"fileName": name, "contentType": "application/pdf", "sizeBytes": len(data)}
            | {"projectId": project_id, **extra},
        )
        url = target["uploadUrl"]
        # The local backend's upload URL is the app's own; S3's is the object store's.
        if url.startswith(settings.public_url.rstrip("/") + "/"):
            put = await self.client.request(
                target["method"], url, content=data, headers=target["headers"]
            )
        else:
            async with httpx.AsyncClient() as outside:
                put = await outside.request(
                    target["method"], url, content=data, headers=target["headers"]
                )
        if put.status_code >= 300:
            raise DemoFailed(f"upload of {name}: {put.status_code} {put.text}")
        return await self(
            "POST", "/api/v1/files/complete-upload", json={"uploadId": target["uploadId"]}
        )


def day(offset: int) -> str:
    """The ISO date ``offset`` days from today."""
    return (clock.today() + timedelta(days=offset)).isoformat()
