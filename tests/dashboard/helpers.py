"""Files and records written straight to the database, for the dashboard's figures."""

from __future__ import annotations

from datetime import date
from typing import Any

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.sequence import next_number
from plumbline.models import File, FileVersion, Issue, Project, PunchItem, Rfi


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


async def add_record(
    kind: str,
    project: Project,
    status: str,
    due: date | None = None,
    *,
    issue_kind: str = "CONSTRUCTION",
    deleted: bool = False,
) -> str:
    """An issue, RFI or punch item (``kind``) in any status, without going through its
    workflow; returns its id."""
    async with database.sessionmaker() as db:
        now = clock.now()
        common: dict[str, Any] = {
            "project_id": project.id,
            "workspace_id": project.workspace_id,
            "title": f"{kind} {status}",
            "status": status,
            "due_date": due,
            "created_at": now,
            "updated_at": now,
            "deleted_at": now if deleted else None,
        }
        number = await next_number(db, project.id, kind)
        record: Issue | Rfi | PunchItem
        if kind == "issue":
            record = Issue(number=number, issue_kind=issue_kind, **common)
        elif kind == "rfi":
            record = Rfi(rfi_number=number, **common)
        else:
            record = PunchItem(punch_number=number, **common)
        db.add(record)
        await db.commit()
        return record.id
