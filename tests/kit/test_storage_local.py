"""The local storage backend and its signed URLs, through the app's storage routes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from plumbline.config import settings
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.storage import LocalStorage, get_storage, safe_name
from plumbline.kit.storage.base import check_key
from plumbline.kit.storage.http import Unsatisfiable, parse_range


def _backend() -> LocalStorage:
    backend = get_storage()
    assert isinstance(backend, LocalStorage)
    return backend


def _key() -> str:
    return f"ws/test/p/test/files/{new_id()}/up/data.bin"


async def test_put_then_read_through_signed_urls(client):
    backend, key = _backend(), _key()
    data = bytes(range(256)) * 4096 * 5  # 5 MiB, streamed in chunks
    target = await backend.presign_put(
        key, content_type="application/pdf", size=len(data), expires_in=timedelta(hours=1)
    )

    async def chunks():
        for i in range(0, len(data), 65536):
            yield data[i : i + 65536]

    put = await client.put(target.url, content=chunks())
    assert put.status_code == 200 and put.json() == {"ok": True}
    assert await backend.head(key) == len(data)
    url = await backend.presign_get(
        key, expires_in=timedelta(minutes=5), filename="Plan é.pdf", content_type="application/pdf"
    )
    got = await client.get(url)
    assert got.status_code == 200 and got.content == data
    assert got.headers["content-type"] == "application/pdf"
    assert "filename*=UTF-8''Plan%20%C3%A9.pdf" in got.headers["content-disposition"]
    part = await client.get(url, headers={"Range": "bytes=1048570-1048579"})
    assert part.status_code == 206 and part.content == data[1048570:1048580]
    assert (await client.get(url, headers={"Range": f"bytes={len(data)}-"})).status_code == 416
    assert (
        await client.get(url, headers={"If-None-Match": got.headers["etag"]})
    ).status_code == 304
    again = await client.put(target.url, content=b"x")
    assert again.status_code == 409
    await backend.delete(key)
    assert (await client.get(url)).status_code == 404


async def test_put_refuses_more_than_declared_with_or_without_length(client):
    backend, key = _backend(), _key()
    target = await backend.presign_put(
        key, content_type="text/plain", size=10, expires_in=timedelta(hours=1)
    )
    declared = await client.put(target.url, content=b"x" * 11)
    assert declared.status_code == 413

    async def endless():
        for _ in range(4):
            yield b"y" * 8

    streamed = await client.put(target.url, content=endless())
    assert streamed.status_code == 413
    assert await backend.head(key) is None
    assert not list(backend.path(key).parent.glob("*.part"))


async def test_signatures_and_expiry(client):
    backend, key = _backend(), _key()
    target = await backend.presign_put(
        key, content_type="text/plain", size=3, expires_in=timedelta(minutes=1)
    )
    token = target.url.rsplit("/", 1)[1]
    payload, _, signature = token.rpartition(".")
    forged = target.url.replace(token, f"{payload}.{'A' * len(signature)}")
    assert (await client.put(forged, content=b"abc")).status_code == 403
    assert (
        await client.put(target.url.replace(token, "garbage"), content=b"abc")
    ).status_code == 403
    read = await backend.presign_get(key, expires_in=timedelta(minutes=1))
    read_token = read.rsplit("/", 1)[1]
    swapped = await client.put(target.url.replace(token, read_token), content=b"abc")
    assert swapped.status_code == 403
    clock.set_now(clock.now() + timedelta(minutes=2))
    expired = await client.put(target.url, content=b"abc")
    assert expired.status_code == 410 and expired.json()["code"] == "EXPIRED"
    assert (await client.get(read)).status_code == 410


async def test_routes_are_404_when_another_backend_is_configured(client, monkeypatch):
    backend, key = _backend(), _key()
    target = await backend.presign_put(
        key, content_type="text/plain", size=3, expires_in=timedelta(minutes=1)
    )
    monkeypatch.setattr(settings, "storage", "s3")
    monkeypatch.setattr(settings, "s3_endpoint_url", "http://127.0.0.1:9")
    assert (await client.put(target.url, content=b"abc")).status_code == 404


async def test_empty_object_and_sha256(client):
    backend, key = _backend(), _key()
    await backend.put_bytes(key, b"", "text/plain")
    assert await backend.head(key) == 0
    assert (
        await backend.sha256(key)
        == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )
    url = await backend.presign_get(key, expires_in=timedelta(minutes=1))
    got = await client.get(url)
    assert got.status_code == 200 and got.content == b""
    assert await backend.sha256("ws/none/missing.bin") is None


def test_parse_range():
    assert parse_range(None, 100) is None
    assert parse_range("bytes=0-9", 100) == (0, 9)
    assert parse_range("bytes=90-200", 100) == (90, 99)
    assert parse_range("bytes=-5", 100) == (95, 99)
    assert parse_range("bytes=-500", 100) == (0, 99)
    assert parse_range("bytes=5-", 100) == (5, 99)
    assert parse_range("bytes=9-3", 100) is None
    assert parse_range("bytes=0-1,5-6", 100) is None
    assert parse_range("items=0-1", 100) is None
    with pytest.raises(Unsatisfiable):
        parse_range("bytes=100-", 100)
    with pytest.raises(Unsatisfiable):
        parse_range("bytes=-0", 100)


def test_safe_names_and_keys():
    assert safe_name("../../etc/passwd") == "passwd"
    assert safe_name("A-101 rev B (1).pdf") == "A-101_rev_B_1_.pdf"
    assert safe_name("Plan é.pdf") == "Plan_e.pdf"
    assert safe_name("...") == "file"
    long = safe_name("x" * 300 + ".pdf")
    assert len(long) <= 120 and long.endswith(".pdf")
    for bad in ("", "/abs", "a/../b", "a//b", "./a"):
        with pytest.raises(ValueError):
            check_key(bad)


async def test_delete_prefix_removes_a_workspace_tree():
    backend = _backend()
    root = f"ws/{new_id()}"
    for name in ("p/a/files/1/u/x.pdf", "branding/logo.png", "p/b/attachments/issue/1/u/y.jpg"):
        await backend.put_bytes(f"{root}/{name}", b"data", "application/octet-stream")
    keep = f"ws/{new_id()}/keep.bin"
    await backend.put_bytes(keep, b"k", "application/octet-stream")
    assert await backend.delete_prefix(root) == 3
    assert await backend.head(f"{root}/branding/logo.png") is None
    assert await backend.head(keep) == 1
    assert await backend.delete_prefix(root) == 0
