"""The S3 backend against moto's standalone server over a real socket: presigned PUT and GET
go straight to the object store; the app only signs, checks and records."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import httpx
import pytest

from plumbline.errors import PayloadTooLarge
from plumbline.kit.ids import new_id
from plumbline.kit.storage.s3 import S3Storage
from tests.factories import create_api_key, key_headers
from tests.file.helpers import PDF, complete, count_files, presign, sha, storage_used


async def test_backend_presigned_put_head_ranges_sha_delete(s3_storage: S3Storage, moto_url: str):
    key = f"ws/w/p/p/files/{new_id()}/u/data.bin"
    data = bytes(range(256)) * 5000
    target = await s3_storage.presign_put(
        key, content_type="application/pdf", size=len(data), expires_in=timedelta(hours=1)
    )
    assert target.url.startswith(moto_url) and target.method == "PUT"
    async with httpx.AsyncClient() as raw:
        put = await raw.put(target.url, content=data, headers=target.headers)
        assert put.status_code == 200, put.text
        assert await s3_storage.head(key) == len(data)
        assert await s3_storage.sha256(key) == hashlib.sha256(data).hexdigest()
        chunks = [c async for c in s3_storage.open_range(key, 10, 1033)]
        assert b"".join(chunks) == data[10:1034]
        url = await s3_storage.presign_get(
            key, expires_in=timedelta(minutes=5), filename="A 1.pdf", content_type="application/pdf"
        )
        got = await raw.get(url)
        assert got.status_code == 200 and got.content == data
        assert got.headers["content-type"] == "application/pdf"
        assert "A%201.pdf" in got.headers["content-disposition"]
    await s3_storage.put_bytes(f"{key}.logo", b"\x89PNG", "image/png")
    assert await s3_storage.head(f"{key}.logo") == 4
    await s3_storage.delete(key)
    assert await s3_storage.head(key) is None
    assert await s3_storage.sha256(key) is None
    await s3_storage.delete(key)
    assert await s3_storage.delete_prefix("ws/w") == 1
    assert await s3_storage.head(f"{key}.logo") is None


async def test_four_step_upload_and_reads_on_s3(
    client, world, s3_storage: S3Storage, moto_url: str
):
    headers, pid = world.member.headers, world.project.id
    used = await storage_used(world.workspace.id)
    target = (await presign(client, headers, pid, "S3 plan.pdf", len(PDF))).json()
    assert target["uploadUrl"].startswith(moto_url)
    async with httpx.AsyncClient() as raw:
        put = await raw.put(target["uploadUrl"], content=PDF, headers=target["headers"])
        assert put.status_code == 200
    done = await complete(client, headers, target["uploadId"], sha(PDF))
    assert done.status_code == 200, done.text
    result = done.json()
    assert result["version"] == 1 and result["sizeBytes"] == len(PDF)
    assert await storage_used(world.workspace.id) == used + len(PDF)
    ranged = await client.get(
        f"/api/v1/files/{result['id']}/content", headers={**headers, "Range": "bytes=5-24"}
    )
    assert ranged.status_code == 206 and ranged.content == PDF[5:25]
    read = await client.get(f"/api/v1/files/{result['id']}/presign-read", headers=headers)
    assert read.json()["url"].startswith(moto_url)
    async with httpx.AsyncClient() as raw:
        assert (await raw.get(read.json()["url"])).content == PDF
    deleted = await client.delete(
        f"/api/v1/projects/{pid}/files/{result['id']}", headers=world.manager.headers
    )
    assert deleted.status_code == 200
    assert await s3_storage.head(target["s3Key"]) is None
    assert await storage_used(world.workspace.id) == used


async def test_s3_mismatch_and_missing_record_nothing(client, world, s3_storage: S3Storage):
    raw_key, _ = await create_api_key(world.project, ["files:write", "files:read"])
    headers, pid = key_headers(raw_key), world.project.id
    target = (await presign(client, headers, pid, "short.pdf", len(PDF) + 1)).json()
    missing = await complete(client, headers, target["uploadId"])
    assert missing.status_code == 409 and missing.json()["code"] == "UPLOAD_MISSING"
    async with httpx.AsyncClient() as raw:
        await raw.put(target["uploadUrl"], content=PDF, headers=target["headers"])
    before = await count_files(pid)
    mismatch = await complete(client, headers, target["uploadId"])
    assert mismatch.status_code == 400 and mismatch.json()["code"] == "SIZE_MISMATCH"
    assert await count_files(pid) == before
    assert await s3_storage.head(target["s3Key"]) is None


async def test_local_storage_routes_are_off_with_s3(client, s3_storage: S3Storage):
    response = await client.get("/api/v1/storage/object/anything.sig")
    assert response.status_code == 404


async def test_s3_put_stream_in_parts_small_in_one_and_too_large_leaves_nothing(
    s3_storage: S3Storage,
):
    async def chunks(total: int, size: int = 1024 * 1024):
        block = bytes(range(256)) * (size // 256)
        sent = 0
        while sent < total:
            piece = block[: min(size, total - sent)]
            sent += len(piece)
            yield piece

    big = f"ws/w/p/p/files/{new_id()}/u/big.bin"
    total = 8 * 1024 * 1024 * 2 + 12345  # three parts
    assert await s3_storage.put_stream(big, chunks(total), "application/pdf", total) == total
    assert await s3_storage.head(big) == total
    expected = hashlib.sha256()
    async for piece in chunks(total):
        expected.update(piece)
    assert await s3_storage.sha256(big) == expected.hexdigest()

    small = f"ws/w/p/p/files/{new_id()}/u/small.bin"
    assert await s3_storage.put_stream(small, chunks(1000), "text/plain", 1000) == 1000
    assert await s3_storage.head(small) == 1000

    refused = f"ws/w/p/p/files/{new_id()}/u/refused.bin"
    with pytest.raises(PayloadTooLarge):
        await s3_storage.put_stream(refused, chunks(total), "application/pdf", total - 1)
    assert await s3_storage.head(refused) is None
    pending = s3_storage.client.list_multipart_uploads(Bucket=s3_storage.bucket).get("Uploads", [])
    assert [u for u in pending if u["Key"] == refused] == []
