"""Every query of the files domain; reads are scoped by project (and so by workspace)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import AnySelect
from plumbline.file.schemas import FolderRead
from plumbline.file.types import folded
from plumbline.kit import search
from plumbline.kit.pagination import PageParams
from plumbline.models import File, FileVersion, Folder

# ---- folders


async def get_folder(db: AsyncSession, project_id: str, folder_id: str) -> Folder | None:
    query = select(Folder).where(Folder.id == folder_id, Folder.project_id == project_id)
    return (await db.execute(query)).scalar_one_or_none()


async def folder_tree(db: AsyncSession, project_id: str) -> Sequence[Any]:
    """``(id, parent_id, name)`` of every folder of the project."""
    query = select(Folder.id, Folder.parent_id, Folder.name).where(Folder.project_id == project_id)
    return (await db.execute(query)).all()


async def list_folders(
    db: AsyncSession, project_id: str, parent_id: str | None, page: PageParams, *, root: bool
) -> Sequence[Any]:
    columns = (getattr(Folder, name) for name in FolderRead.model_fields)
    query: AnySelect = select(*columns).where(Folder.project_id == project_id)
    if root:
        query = query.where(Folder.parent_id.is_(None))
    elif parent_id is not None:
        query = query.where(Folder.parent_id == parent_id)
    return (await db.execute(page.apply(query, Folder.id))).all()


async def sibling_named(
    db: AsyncSession, project_id: str, parent_id: str | None, name: str, exclude: str | None
) -> bool:
    query = select(Folder.id).where(
        Folder.project_id == project_id,
        Folder.parent_id.is_(None) if parent_id is None else Folder.parent_id == parent_id,
        func.lower(Folder.name) == name.lower(),
    )
    if exclude is not None:
        query = query.where(Folder.id != exclude)
    return (await db.execute(query.limit(1))).first() is not None


async def folder_is_empty(db: AsyncSession, folder_id: str) -> bool:
    child = exists().where(Folder.parent_id == folder_id)
    live_file = exists().where(File.folder_id == folder_id, File.deleted_at.is_(None))
    return not (await db.execute(select(or_(child, live_file)))).scalar_one()


async def delete_folders(db: AsyncSession, folder_ids: Sequence[str]) -> None:
    await db.execute(
        delete(Folder).where(Folder.id.in_(folder_ids)).execution_options(synchronize_session=False)
    )


# ---- files and versions


async def get_file(db: AsyncSession, file_id: str, *, deleted: bool = False) -> File | None:
    query = select(File).where(File.id == file_id)
    if not deleted:
        query = query.where(File.deleted_at.is_(None))
    return (await db.execute(query)).scalar_one_or_none()


async def get_project_file(db: AsyncSession, project_id: str, file_id: str) -> File | None:
    query = select(File).where(
        File.id == file_id, File.project_id == project_id, File.deleted_at.is_(None)
    )
    return (await db.execute(query)).scalar_one_or_none()


async def files_in_folder(
    db: AsyncSession, project_id: str, folder_id: str | None
) -> Sequence[Any]:
    """``(id, name, normalized_name, version_seq)`` of the live files of one folder."""
    query = select(File.id, File.name, File.normalized_name, File.version_seq).where(
        File.project_id == project_id,
        File.folder_id.is_(None) if folder_id is None else File.folder_id == folder_id,
        File.deleted_at.is_(None),
    )
    return (await db.execute(query)).all()


async def find_by_name(
    db: AsyncSession, project_id: str, folder_id: str | None, normalized: str
) -> File | None:
    query = (
        select(File)
        .where(
            File.project_id == project_id,
            File.folder_id.is_(None) if folder_id is None else File.folder_id == folder_id,
            File.normalized_name == normalized,
            File.deleted_at.is_(None),
        )
        .order_by(File.id)
        .limit(1)
    )
    return (await db.execute(query)).scalar_one_or_none()


async def next_version(db: AsyncSession, file_id: str) -> int:
    """Atomically take the file's next version number (never reused, even after deletes)."""
    statement = (
        update(File)
        .where(File.id == file_id)
        .values(version_seq=File.version_seq + 1)
        .returning(File.version_seq)
        .execution_options(synchronize_session=False)
    )
    return int((await db.execute(statement)).scalar_one())


def _file_columns() -> tuple[Any, ...]:
    return (
        File.id,
        File.project_id,
        File.folder_id,
        File.name,
        File.disciplines,
        File.current_version,
        File.latest_version_id,
        File.created_at,
        File.created_by,
        File.updated_at,
        File.last_opened_at,
        FileVersion.size_bytes,
        FileVersion.content_type,
    )


async def list_files(
    db: AsyncSession,
    project_id: str,
    *,
    folder_id: str | None,
    root: bool,
    q: str | None,
    page: PageParams,
) -> Sequence[Any]:
    query: AnySelect = (
        select(*_file_columns())
        .outerjoin(FileVersion, FileVersion.id == File.latest_version_id)
        .where(File.project_id == project_id, File.deleted_at.is_(None))
    )
    if root:
        query = query.where(File.folder_id.is_(None))
    elif folder_id is not None:
        query = query.where(File.folder_id == folder_id)
    if q:
        query = query.where(search.matches(folded(q), File.normalized_name))
    return (await db.execute(search.inline(page.apply(query, File.id), q))).all()


async def file_row(db: AsyncSession, file_id: str) -> Any:
    query = (
        select(*_file_columns())
        .outerjoin(FileVersion, FileVersion.id == File.latest_version_id)
        .where(File.id == file_id)
    )
    return (await db.execute(query)).one()


async def live_versions(db: AsyncSession, file_id: str) -> Sequence[FileVersion]:
    """The file's versions that are not deleted, newest first."""
    query = (
        select(FileVersion)
        .where(FileVersion.file_id == file_id, FileVersion.deleted_at.is_(None))
        .order_by(FileVersion.version.desc())
    )
    return (await db.execute(query)).scalars().all()


async def get_version(db: AsyncSession, file_id: str, version: int | None) -> FileVersion | None:
    """A live version by number, or the latest live one when ``version`` is None."""
    query = select(FileVersion).where(
        FileVersion.file_id == file_id, FileVersion.deleted_at.is_(None)
    )
    query = (
        query.where(FileVersion.version == version)
        if version is not None
        else query.order_by(FileVersion.version.desc()).limit(1)
    )
    return (await db.execute(query)).scalar_one_or_none()


async def files_by_id(db: AsyncSession, ids: Sequence[str]) -> Sequence[Any]:
    """``list_files``' rows of these files, live or not (their events)."""
    query = (
        select(*_file_columns())
        .outerjoin(FileVersion, FileVersion.id == File.latest_version_id)
        .where(File.id.in_(ids))
    )
    return (await db.execute(query)).all()


async def versions_by_id(db: AsyncSession, ids: Sequence[str]) -> Sequence[FileVersion]:
    return (await db.execute(select(FileVersion).where(FileVersion.id.in_(ids)))).scalars().all()


async def versions_of_files(db: AsyncSession, file_ids: Sequence[str]) -> Sequence[Any]:
    """``(id, file_id, size_bytes, storage_key)`` of the live versions of these files."""
    if not file_ids:
        return []
    query = select(
        FileVersion.id, FileVersion.file_id, FileVersion.size_bytes, FileVersion.storage_key
    ).where(FileVersion.file_id.in_(file_ids), FileVersion.deleted_at.is_(None))
    return (await db.execute(query)).all()


async def live_files_in_folders(db: AsyncSession, folder_ids: Sequence[str]) -> list[str]:
    query = select(File.id).where(File.folder_id.in_(folder_ids), File.deleted_at.is_(None))
    return list((await db.execute(query)).scalars().all())


async def soft_delete(
    db: AsyncSession, *, file_ids: Sequence[str], version_ids: Sequence[str], now: datetime
) -> None:
    if file_ids:
        await db.execute(
            update(File)
            .where(File.id.in_(file_ids), File.deleted_at.is_(None))
            .values(deleted_at=now, updated_at=now)
            .execution_options(synchronize_session="fetch")
        )
    if version_ids:
        await db.execute(
            update(FileVersion)
            .where(FileVersion.id.in_(version_ids), FileVersion.deleted_at.is_(None))
            .values(deleted_at=now)
            .execution_options(synchronize_session="fetch")
        )
