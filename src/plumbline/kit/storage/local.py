"""Local directory backend: objects are files under ``settings.storage_dir``.

Upload and read URLs are signed, expiring links to the app's own ``/api/v1/storage/*``
routes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any, BinaryIO

from plumbline.config import settings
from plumbline.errors import Expired, Forbidden, PayloadTooLarge
from plumbline.kit import clock, crypto
from plumbline.kit.ids import new_id
from plumbline.kit.storage.base import CHUNK, PresignedPut, check_key

PUT = "storage:put"
GET = "storage:get"


def make_token(purpose: str, claims: dict[str, Any], expires_in: timedelta) -> str:
    """``<base64url claims>.<HMAC>``; the claims carry the key, limits and an epoch expiry."""
    return crypto.signed_claims(claims, purpose, clock.now() + expires_in)


def read_token(token: str, purpose: str) -> dict[str, Any]:
    """The claims of a valid token: 403 when tampered with, 410 when expired."""
    claims = crypto.unsign_claims(token, purpose)
    if claims is None:
        raise Forbidden("This storage link is not valid", code="INVALID_SIGNATURE")
    if claims["x"] < clock.now().timestamp():
        raise Expired("This storage link has expired")
    return claims


def _make(root: Path) -> bool:
    """Create the storage directory (a fresh install has none until the first upload)."""
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return True


class LocalStorage:
    name = "local"

    def __init__(self, root: Path) -> None:
        self.root = root

    async def check(self) -> None:
        if not self.root.is_dir() and not await asyncio.to_thread(_make, self.root):
            raise OSError(f"{self.root} is not a directory")
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise PermissionError(f"{self.root} is not writable")

    def path(self, key: str) -> Path:
        return self.root / check_key(key)

    async def presign_put(
        self, key: str, *, content_type: str, size: int, expires_in: timedelta
    ) -> PresignedPut:
        token = make_token(PUT, {"k": check_key(key), "n": size}, expires_in)
        return PresignedPut(
            url=f"{settings.public_url.rstrip('/')}/api/v1/storage/upload/{token}",
            method="PUT",
            headers={"Content-Type": content_type},
            expires_at=clock.now() + expires_in,
        )

    async def presign_get(
        self,
        key: str,
        *,
        expires_in: timedelta,
        filename: str | None = None,
        content_type: str | None = None,
    ) -> str:
        claims = {"k": check_key(key), "f": filename, "t": content_type}
        token = make_token(GET, claims, expires_in)
        return f"{settings.public_url.rstrip('/')}/api/v1/storage/object/{token}"

    async def head(self, key: str) -> int | None:
        try:
            return (await asyncio.to_thread(self.path(key).stat)).st_size
        except FileNotFoundError:
            return None

    async def sha256(self, key: str) -> str | None:
        def digest() -> str | None:
            try:
                with self.path(key).open("rb") as f:
                    return hashlib.file_digest(f, "sha256").hexdigest()
            except FileNotFoundError:
                return None

        return await asyncio.to_thread(digest)

    async def open_range(self, key: str, start: int, end: int) -> AsyncIterator[bytes]:
        f: BinaryIO = await asyncio.to_thread(self.path(key).open, "rb")
        try:
            await asyncio.to_thread(f.seek, start)
            remaining = end - start + 1
            while remaining > 0:
                chunk = await asyncio.to_thread(f.read, min(CHUNK, remaining))
                if not chunk:
                    break
                remaining -= len(chunk)
                yield chunk
        finally:
            await asyncio.to_thread(f.close)

    async def put_stream(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str, max_size: int
    ) -> int:
        """Write ``chunks`` (a request body, a cloud import) to ``key``: a temporary file renamed
        into place once complete, so a reader never sees half an object. More than
        ``max_size`` bytes: 413. The content type is the upload's, not kept here."""
        target = self.path(key)
        await asyncio.to_thread(target.parent.mkdir, parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.{new_id()}.part")
        f: BinaryIO = await asyncio.to_thread(temp.open, "wb")
        received = 0
        pending: list[bytes] = []
        buffered = 0
        try:
            async for chunk in chunks:
                received += len(chunk)
                if received > max_size:
                    raise PayloadTooLarge("More bytes than the upload declared")
                pending.append(chunk)
                buffered += len(chunk)
                if buffered >= CHUNK:
                    await asyncio.to_thread(f.write, b"".join(pending))
                    pending, buffered = [], 0
            if pending:
                await asyncio.to_thread(f.write, b"".join(pending))
            await asyncio.to_thread(f.close)
            await asyncio.to_thread(os.replace, temp, target)
        finally:
            if not f.closed:
                await asyncio.to_thread(f.close)
            with contextlib.suppress(FileNotFoundError):
                await asyncio.to_thread(temp.unlink)
        return received

    async def put_bytes(self, key: str, data: bytes, content_type: str) -> None:
        async def one() -> AsyncIterator[bytes]:
            yield data

        await self.put_stream(key, one(), content_type, len(data))

    async def delete(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            await asyncio.to_thread(self.path(key).unlink)

    async def delete_prefix(self, prefix: str) -> int:
        """Delete every object under ``prefix/`` (a whole workspace's ``ws/{id}``)."""
        folder = self.path(prefix.rstrip("/"))

        def remove() -> int:
            if not folder.is_dir():
                return 0
            count = sum(1 for p in folder.rglob("*") if p.is_file())
            shutil.rmtree(folder, ignore_errors=True)
            return count

        return await asyncio.to_thread(remove)
