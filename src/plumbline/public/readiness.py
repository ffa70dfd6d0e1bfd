"""``GET /api/v1/ready``: may this process take traffic? Each part it needs is checked: the
database, the schema at the migrations' head, Redis when configured, the object storage."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import lru_cache

from sqlalchemy import text

from plumbline.config import settings
from plumbline.db import database
from plumbline.errors import AppError
from plumbline.kit.storage import get_storage

TIMEOUT = 5.0  # seconds each check may take: a probe must answer before its own timeout

OK, NOT_CONFIGURED = "ok", "not configured"
NOT_CHECKED = "not checked: the database is unreachable"


class NotReady(AppError, status=503, code="NOT_READY", message="Not ready"): ...


@lru_cache(maxsize=1)
def head_revisions() -> frozenset[str]:
    """The revisions this package's migrations end at."""
    from alembic.script import ScriptDirectory

    from plumbline.migrate import alembic_config

    return frozenset(ScriptDirectory.from_config(alembic_config()).get_heads())


async def _database() -> str:
    async with database.engine.connect() as conn:
        await conn.execute(text("SELECT 1"))
    return OK


async def _migrations() -> str:
    async with database.engine.connect() as conn:
        rows = await conn.execute(text("SELECT version_num FROM alembic_version"))
        applied = frozenset(str(version) for version in rows.scalars())
    if applied != head_revisions():
        at = ", ".join(sorted(applied)) or "none"
        head = ", ".join(sorted(head_revisions()))
        return f"behind: at {at}, head {head} (run plumbline db upgrade)"
    return OK


async def _redis() -> str:
    if not settings.redis_url:
        return NOT_CONFIGURED
    import redis.asyncio as redis

    client = redis.from_url(settings.redis_url)
    try:
        await client.ping()
    finally:
        await client.aclose()
    return OK


async def _storage() -> str:
    await get_storage().check()
    return OK


CHECKS: dict[str, Callable[[], Awaitable[str]]] = {
    "database": _database,
    "migrations": _migrations,
    "redis": _redis,
    "storage": _storage,
}


async def _run(check: Callable[[], Awaitable[str]]) -> str:
    try:
        return await asyncio.wait_for(check(), TIMEOUT)
    except TimeoutError:
        return f"no answer within {TIMEOUT:g} s"
    except Exception as exc:
        return f"unreachable: {type(exc).__name__}: {exc}"[:300]


async def readiness() -> dict[str, str]:
    """Each part's state: ``ok``, ``not configured``, or what is wrong; raises ``NotReady``
    naming the failing parts. The migrations are not checked while the database fails."""
    states = await asyncio.gather(*(_run(check) for check in CHECKS.values()))
    checks = dict(zip(CHECKS, states, strict=True))
    if checks["database"] != OK:
        checks["migrations"] = NOT_CHECKED
    failing = [
        name for name, state in checks.items() if state not in (OK, NOT_CONFIGURED, NOT_CHECKED)
    ]
    if failing:
        raise NotReady(f"Not ready: {', '.join(failing)}", checks=checks)
    return checks
