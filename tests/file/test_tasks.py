"""Housekeeping jobs: stale uploads and purged workspaces' objects."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from plumbline.db import database
from plumbline.file.tasks import purge_stale_uploads, purge_workspace_objects
from plumbline.kit import clock
from plumbline.kit.storage import get_storage
from plumbline.models import Upload
from tests.file.helpers import PDF, presign, put_bytes, upload, version_row


async def test_stale_uploads_and_their_bytes_are_removed(client, world):
    headers, pid = world.member.headers, world.project.id
    stale = (await presign(client, headers, pid, "stale.pdf", len(PDF))).json()
    assert (await put_bytes(client, stale, PDF)).status_code == 200
    done = await upload(client, headers, pid, "kept.pdf", PDF)
    fresh_now = clock.now() + timedelta(days=1, hours=2)
    clock.set_now(fresh_now)
    recent = (await presign(client, headers, pid, "recent.pdf", len(PDF))).json()
    async with database.sessionmaker() as db:
        removed = await purge_stale_uploads(db)
        await db.commit()
        remaining = set(
            (await db.execute(select(Upload.id).where(Upload.project_id == pid))).scalars()
        )
    assert removed >= 1
    assert stale["uploadId"] not in remaining and recent["uploadId"] in remaining
    assert await get_storage().head(stale["s3Key"]) is None
    kept = await version_row(done["fileVersionId"])
    assert await get_storage().head(kept.storage_key) == len(PDF)


async def test_purging_a_workspace_removes_its_objects(client, world):
    done = await upload(client, world.member.headers, world.project.id, "p.pdf", PDF)
    key = (await version_row(done["fileVersionId"])).storage_key
    async with database.sessionmaker() as db:
        await purge_workspace_objects(db, [world.workspace.id])
    assert await get_storage().head(key) is None
