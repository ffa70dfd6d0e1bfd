"""Dashboard queries: aggregates only, one statement per section."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import File, FileVersion


async def file_totals(db: AsyncSession, *, project_id: str) -> tuple[int, int]:
    """Live files, and the bytes of their live versions."""
    files = (
        select(func.count())
        .select_from(File)
        .where(File.project_id == project_id, File.deleted_at.is_(None))
        .scalar_subquery()
    )
    stored = (
        select(func.coalesce(func.sum(FileVersion.size_bytes), 0))
        .join(File, File.id == FileVersion.file_id)
        .where(
            FileVersion.project_id == project_id,
            FileVersion.deleted_at.is_(None),
            File.deleted_at.is_(None),
        )
        .scalar_subquery()
    )
    count, size = (await db.execute(select(files, stored))).one().tuple()
    return int(count), int(size)
