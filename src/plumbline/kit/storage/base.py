"""The storage interface every backend implements, and the helpers they share."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol
from urllib.parse import quote

CHUNK = 1024 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
SAFE_NAME_LENGTH = 120
_NOT_QUOTABLE = re.compile(r'[^\x20-\x7e]|["\\]')


@dataclass(frozen=True)
class PresignedPut:
    url: str
    method: str
    headers: dict[str, str]
    expires_at: datetime


class Storage(Protocol):
    """Objects addressed by keys such as ``ws/{w}/p/{p}/files/{f}/{upload}/{name}``.

    ``open_range`` yields the bytes ``start..end`` (both inclusive) in chunks of at most 1 MiB;
    the caller checks the object exists (``head``) before streaming it."""

    name: str

    async def presign_put(
        self, key: str, *, content_type: str, size: int, expires_in: timedelta
    ) -> PresignedPut: ...

    async def presign_get(
        self,
        key: str,
        *,
        expires_in: timedelta,
        filename: str | None = None,
        content_type: str | None = None,
    ) -> str: ...

    async def head(self, key: str) -> int | None: ...

    async def sha256(self, key: str) -> str | None: ...

    def open_range(self, key: str, start: int, end: int) -> AsyncIterator[bytes]: ...

    async def put_bytes(self, key: str, data: bytes, content_type: str) -> None: ...

    async def put_stream(
        self, key: str, chunks: AsyncIterator[bytes], content_type: str, max_size: int
    ) -> int:
        """Store ``chunks`` under ``key`` without holding them all in memory; returns the size.
        More than ``max_size`` bytes: 413 and nothing stored. A reader never sees half an
        object."""
        ...

    async def delete(self, key: str) -> None: ...

    async def delete_prefix(self, prefix: str) -> int: ...

    async def check(self) -> None:
        """Raise when the store cannot be reached or written to (the readiness route)."""
        ...


def safe_name(file_name: str) -> str:
    """A file name usable in an object key and a URL: ASCII letters, digits, ``._-``."""
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    ascii_name = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode()
    cleaned = _UNSAFE.sub("_", ascii_name).strip("._") or "file"
    if len(cleaned) > SAFE_NAME_LENGTH:
        stem, dot, ext = cleaned.rpartition(".")
        ext = ext[:16] if dot else ""
        keep = SAFE_NAME_LENGTH - len(ext) - 1
        cleaned = f"{(stem or cleaned)[:keep]}.{ext}" if ext else cleaned[:SAFE_NAME_LENGTH]
    return cleaned


def check_key(key: str) -> str:
    """Refuse keys that could escape the storage root or the bucket prefix."""
    parts = key.split("/")
    if not key or key.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"invalid storage key {key!r}")
    return key


def content_disposition(filename: str, disposition: str = "inline") -> str:
    fallback = _NOT_QUOTABLE.sub("", filename)
    return f"{disposition}; filename=\"{fallback or 'file'}\"; filename*=UTF-8''{quote(filename)}"
