"""The demo's client (the app over ASGI as the demo user) and the dates its bodies use."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import httpx

from plumbline.config import settings
from plumbline.kit import clock


class DemoFailed(RuntimeError):
    """The app refused a demo request (the message names it)."""


class Api:
    """The app over ASGI as the signed-in demo user; any answer >= 400 raises DemoFailed."""

    def __init__(self, client: httpx.AsyncClient, user_id: str, cookie: str | None = None) -> None:
        self.client, self.user_id, self.cookie = client, user_id, cookie

    def acting_as(self, user_id: str, cookie: str) -> Api:
        """The same app as another person of the demo (``cookie``: their session's)."""
        return Api(self.client, user_id, cookie)

    async def __call__(self, method: str, path: str, **kwargs: Any) -> Any:
        if self.cookie is not None:
            kwargs["headers"] = {**kwargs.get("headers", {}), "Cookie": self.cookie}
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


# The real time while ``back`` moves the clock: the dates the demo writes stay relative to today.
_seeded_at: list[datetime] = []


def day(offset: int) -> str:
    """The ISO date ``offset`` days from today (the real today, also inside ``back``)."""
    today = _seeded_at[0].date() if _seeded_at else clock.today()
    return (today + timedelta(days=offset)).isoformat()


@contextmanager
def back(days: float) -> Iterator[None]:
    """The requests of the block happen ``days`` ago: the records they make, their history
    and audit entries carry that time, so the demo shows the activity of a real fortnight.
    Blocks go in time order (each later than the one before: feeds order entries by id) and
    do not nest."""
    if _seeded_at:
        raise RuntimeError("back() does not nest")
    real = clock.now()
    _seeded_at.append(real)
    clock.set_now(real - timedelta(days=days))
    try:
        yield
    finally:
        _seeded_at.clear()
        clock.set_now(None)
