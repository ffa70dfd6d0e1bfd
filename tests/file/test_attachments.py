"""The attachment service other domains call, with a real ProjectContext and real PUTs."""

from __future__ import annotations

import pytest

from plumbline.auth.principal import Principal
from plumbline.authz.project import load_project
from plumbline.db import UnitOfWork, database
from plumbline.errors import AppError
from plumbline.file.attachments import attachments
from plumbline.file.types import IMAGE_TYPES
from plumbline.kit.ids import new_id
from plumbline.kit.storage import get_storage
from tests.factories import QueryCounter
from tests.file.helpers import put_bytes, sha, storage_used

JPEG = b"\xff\xd8\xff\xe0" + b"\x10JFIF" + bytes(range(200)) * 3
MiB = 1024 * 1024


async def _presign(world, entity_id, *, name="photo.jpg", ctype="image/jpeg", size=None, **limits):
    async with database.sessionmaker() as db:
        ctx = await load_project(db, Principal(user=world.member.user), world.project.id)
        target = await attachments.presign(
            db,
            ctx,
            entity_type="issue",
            entity_id=entity_id,
            file_name=name,
            content_type=ctype,
            size_bytes=len(JPEG) if size is None else size,
            allowed_types=limits.get("allowed_types", IMAGE_TYPES),
            max_bytes=limits.get("max_bytes", 10 * MiB),
            max_count=limits.get("max_count", 3),
        )
        await db.commit()
        return target


async def _complete(world, entity_id, upload_id, sha256=None, max_count=3):
    async with database.sessionmaker() as db:
        ctx = await load_project(db, Principal(user=world.member.user), world.project.id)
        result = await attachments.complete(
            db,
            ctx,
            entity_type="issue",
            entity_id=entity_id,
            upload_id=upload_id,
            max_count=max_count,
            sha256=sha256,
        )
        await db.commit()
        return result


async def test_presign_put_complete_and_list(client, world):
    entity_id = new_id()
    used = await storage_used(world.workspace.id)
    target = await _presign(world, entity_id)
    assert target["method"] == "PUT" and target["uploadId"]
    assert f"/attachments/issue/{entity_id}/" in target["s3Key"]
    assert (await put_bytes(client, target, JPEG)).status_code == 200
    result = await _complete(world, entity_id, target["uploadId"], sha(JPEG))
    assert result["fileName"] == "photo.jpg" and result["contentType"] == "image/jpeg"
    assert result["sizeBytes"] == len(JPEG) and result["createdBy"] == world.member.id
    assert result["createdAt"]
    again = await _complete(world, entity_id, target["uploadId"])
    assert again == result
    assert await storage_used(world.workspace.id) == used + len(JPEG)
    async with database.sessionmaker() as db:
        listed = await attachments.list_for(db, "issue", [entity_id, "no-attachments"])
    assert listed["no-attachments"] == []
    [item] = listed[entity_id]
    assert item["id"] == result["id"]
    got = await client.get(item["url"])
    assert got.status_code == 200 and got.content == JPEG
    assert got.headers["content-type"] == "image/jpeg"


async def test_list_for_many_records_is_one_query(client, world):
    ids = [new_id() for _ in range(3)]
    for entity_id in ids:
        target = await _presign(world, entity_id)
        await put_bytes(client, target, JPEG)
        await _complete(world, entity_id, target["uploadId"])
    async with database.sessionmaker() as db:
        with QueryCounter() as one:
            await attachments.list_for(db, "issue", ids[:1])
        with QueryCounter() as many:
            listed = await attachments.list_for(db, "issue", ids)
    assert one.count == many.count == 1
    assert all(len(listed[i]) == 1 for i in ids)


async def test_type_size_and_count_limits(client, world):
    entity_id = new_id()
    with pytest.raises(AppError) as wrong_type:
        await _presign(world, entity_id, name="doc.pdf", ctype="application/pdf")
    assert wrong_type.value.status == 415
    with pytest.raises(AppError) as too_big:
        await _presign(world, entity_id, size=2 * MiB, max_bytes=MiB)
    assert too_big.value.status == 413
    for _ in range(2):
        target = await _presign(world, entity_id, max_count=2)
        await put_bytes(client, target, JPEG)
        await _complete(world, entity_id, target["uploadId"])
    with pytest.raises(AppError) as full:
        await _presign(world, entity_id, max_count=2)
    assert full.value.status == 409 and full.value.code == "LIMIT_REACHED"
    generic = await _presign(world, new_id(), name="site.png", ctype="application/octet-stream")
    assert generic["headers"]["Content-Type"] == "image/png"
    any_type = await _presign(
        world, new_id(), name="spec.pdf", ctype="application/pdf", allowed_types=None
    )
    assert any_type["uploadId"]


async def test_size_mismatch_and_wrong_target_record_nothing(client, world):
    entity_id = new_id()
    target = await _presign(world, entity_id, size=len(JPEG) + 1)
    await put_bytes(client, target, JPEG)
    with pytest.raises(AppError) as mismatch:
        await _complete(world, entity_id, target["uploadId"])
    assert mismatch.value.code == "SIZE_MISMATCH"
    assert await get_storage().head(target["s3Key"]) is None
    with pytest.raises(AppError) as elsewhere:
        await _complete(world, new_id(), target["uploadId"])
    assert elsewhere.value.status == 404
    async with database.sessionmaker() as db:
        assert (await attachments.list_for(db, "issue", [entity_id]))[entity_id] == []


async def test_without_a_project_context_and_delete(client, world):
    entity_id = new_id()
    async with database.sessionmaker() as db:
        target = await attachments.presign_as(
            db,
            workspace_id=world.workspace.id,
            project_id=world.project.id,
            actor_user_id=None,
            entity_type="occupant-photo",
            entity_id=entity_id,
            file_name="leak.jpg",
            content_type="image/jpeg",
            size_bytes=len(JPEG),
            allowed_types=IMAGE_TYPES,
            max_bytes=MiB,
            max_count=5,
        )
        await db.commit()
    assert (await put_bytes(client, target, JPEG)).status_code == 200
    used = await storage_used(world.workspace.id)
    async with database.sessionmaker() as db:
        done = await attachments.complete_as(
            db,
            workspace_id=world.workspace.id,
            project_id=world.project.id,
            actor_user_id=None,
            entity_type="occupant-photo",
            entity_id=entity_id,
            upload_id=target["uploadId"],
            max_count=5,
        )
        await db.commit()
    assert done["createdBy"] is None
    assert await storage_used(world.workspace.id) == used + len(JPEG)
    async with database.sessionmaker() as db:
        uow = UnitOfWork(db)
        await attachments.delete(
            uow,
            workspace_id=world.workspace.id,
            entity_type="occupant-photo",
            entity_id=entity_id,
            attachment_id=done["id"],
        )
        await uow.commit()
    assert await storage_used(world.workspace.id) == used
    assert await get_storage().head(target["s3Key"]) is None
    async with database.sessionmaker() as db:
        assert (await attachments.list_for(db, "occupant-photo", [entity_id]))[entity_id] == []
