"""Object storage behind one interface; ``settings.storage`` picks the backend."""

from __future__ import annotations

from plumbline.config import settings
from plumbline.kit.storage.base import PresignedPut, Storage, safe_name
from plumbline.kit.storage.local import LocalStorage

__all__ = ["LocalStorage", "PresignedPut", "Storage", "get_storage", "safe_name"]

_backends: dict[tuple[str, ...], Storage] = {}


def get_storage() -> Storage:
    """The configured backend, built once per configuration (tests switch settings)."""
    if settings.storage == "s3":
        key: tuple[str, ...] = (
            "s3",
            settings.s3_bucket,
            settings.s3_endpoint_url or "",
            settings.s3_region,
        )
        if key not in _backends:
            from plumbline.kit.storage.s3 import S3Storage

            _backends[key] = S3Storage(
                settings.s3_bucket, settings.s3_endpoint_url, settings.s3_region
            )
        return _backends[key]
    key = ("local", str(settings.storage_dir))
    if key not in _backends:
        _backends[key] = LocalStorage(settings.storage_dir)
    return _backends[key]


def local_storage() -> LocalStorage | None:
    """The local backend when it is the configured one (its routes answer 404 otherwise)."""
    backend = get_storage()
    return backend if isinstance(backend, LocalStorage) else None
