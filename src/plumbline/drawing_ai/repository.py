"""Queries of the drawing-AI results cached per file version, page and kind."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import SheetResult


async def results(
    db: AsyncSession, version_id: str, page_index: int, kinds: tuple[str, ...]
) -> dict[str, tuple[dict[str, Any], datetime]]:
    """``kind -> (result, computed at)`` of what is stored for the page, in one query."""
    rows = await db.execute(
        select(SheetResult.kind, SheetResult.result, SheetResult.created_at).where(
            SheetResult.file_version_id == version_id,
            SheetResult.page_index == page_index,
            SheetResult.kind.in_(kinds),
        )
    )
    return {kind: (result, created_at) for kind, result, created_at in rows}


async def store(db: AsyncSession, values: dict[str, Any]) -> bool:
    """Insert one result unless the page already has one of its kind (two requests computing
    the same page at once: the first stored wins); True when this one was stored."""
    module = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    statement = cast(
        Insert,
        module.insert(SheetResult)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["file_version_id", "page_index", "kind"])
        .returning(SheetResult.id),
    )
    return (await db.execute(statement)).first() is not None
