"""What the idempotency tests share: a key, the stored rows, a keyed issue create."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.models import IdempotencyKey
from tests.issue.helpers import issues_url

REPLAYED = "idempotent-replayed"


def keyed(headers: dict[str, str], key: str) -> dict[str, str]:
    return {**headers, "Idempotency-Key": key}


def new_key() -> str:
    return f"key-{new_id()}"


async def stored(key: str) -> list[IdempotencyKey]:
    """The rows of ``key``, whoever's (tests use keys of their own)."""
    async with database.sessionmaker() as db:
        query = select(IdempotencyKey).where(IdempotencyKey.key == key)
        return list((await db.execute(query)).scalars())


async def create_issue(
    client: httpx.AsyncClient, project_id: str, headers: dict[str, str], key: str, **body: Any
) -> httpx.Response:
    return await client.post(
        issues_url(project_id),
        json={"title": "Leak at level 3"} | body,
        headers=keyed(headers, key),
    )
