"""Helpers for the files tests: the four-step upload over HTTP, and database peeks."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
from sqlalchemy import func, select, update

from plumbline.db import database
from plumbline.models import File, FileVersion, Upload, Workspace

PDF = b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\n%%EOF\n"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def presign(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    project_id: str,
    name: str,
    size: int,
    *,
    content_type: str = "application/pdf",
    **extra: Any,
) -> httpx.Response:
    return await client.post(
        "/api/v1/files/presign-upload",
        json={
            "fileName": name,
            "contentType": content_type,
            "sizeBytes": size,
            "projectId": project_id,
            **extra,
        },
        headers=headers,
    )


async def put_bytes(
    client: httpx.AsyncClient, target: dict[str, Any], data: bytes
) -> httpx.Response:
    """Step 3: PUT to the presigned URL (the app's own storage route on the local backend)."""
    return await client.request(
        target["method"], target["uploadUrl"], content=data, headers=target["headers"]
    )


async def complete(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    upload_id: str,
    sha256: str | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"uploadId": upload_id}
    if sha256 is not None:
        body["sha256"] = sha256
    return await client.post("/api/v1/files/complete-upload", json=body, headers=headers)


async def upload(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    project_id: str,
    name: str = "A-101.pdf",
    data: bytes = PDF,
    *,
    content_type: str = "application/pdf",
    **extra: Any,
) -> dict[str, Any]:
    """Presign, PUT and complete; returns the completion answer."""
    target = await presign(
        client, headers, project_id, name, len(data), content_type=content_type, **extra
    )
    assert target.status_code == 200, target.text
    put = await put_bytes(client, target.json(), data)
    assert put.status_code == 200, put.text
    done = await complete(client, headers, target.json()["uploadId"], sha(data))
    assert done.status_code == 200, done.text
    result: dict[str, Any] = done.json()
    return result


async def storage_used(workspace_id: str) -> int:
    async with database.sessionmaker() as db:
        return int(
            (
                await db.execute(
                    select(Workspace.storage_used_bytes).where(Workspace.id == workspace_id)
                )
            ).scalar_one()
        )


async def set_storage_used(workspace_id: str, value: int) -> None:
    async with database.sessionmaker() as db:
        await db.execute(
            update(Workspace).where(Workspace.id == workspace_id).values(storage_used_bytes=value)
        )
        await db.commit()


async def count_files(project_id: str) -> tuple[int, int]:
    """(files, versions) of a project, deleted or not."""
    async with database.sessionmaker() as db:
        files = (
            await db.execute(select(func.count(File.id)).where(File.project_id == project_id))
        ).scalar_one()
        versions = (
            await db.execute(
                select(func.count(FileVersion.id)).where(FileVersion.project_id == project_id)
            )
        ).scalar_one()
        return int(files), int(versions)


async def upload_row(upload_id: str) -> Upload:
    async with database.sessionmaker() as db:
        return (await db.execute(select(Upload).where(Upload.id == upload_id))).scalar_one()


async def version_row(version_id: str) -> FileVersion:
    async with database.sessionmaker() as db:
        return (
            await db.execute(select(FileVersion).where(FileVersion.id == version_id))
        ).scalar_one()
