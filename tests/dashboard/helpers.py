"""Files written straight to the database, for the dashboard's storage figures."""

from __future__ import annotations

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import File, FileVersion, Project


async def add_file(
    project: Project, sizes: list[int], *, deleted: bool = False, deleted_versions: int = 0
) -> File:
    """A file with one version per size; the first ``deleted_versions`` versions are deleted."""
    async with database.sessionmaker() as db:
        now = clock.now()
        file = File(
            project_id=project.id,
            workspace_id=project.workspace_id,
            name="plan.pdf",
            normalized_name="plan.pdf",
            current_version=len(sizes),
            version_seq=len(sizes),
            created_at=now,
            updated_at=now,
            deleted_at=now if deleted else None,
        )
        db.add(file)
        await db.flush()
        for n, size in enumerate(sizes, start=1):
            db.add(
                FileVersion(
                    file_id=file.id,
                    project_id=project.id,
                    workspace_id=project.workspace_id,
                    version=n,
                    storage_key=f"test/{file.id}/{n}",
                    size_bytes=size,
                    content_type="application/pdf",
                    created_at=now,
                    deleted_at=now if n <= deleted_versions else None,
                )
            )
        await db.commit()
        return file
