"""Time-sortable string identifiers (UUIDv7 as 32 lowercase hex characters)."""

from collections.abc import Callable

import uuid_utils


def _uuid7_hex() -> str:
    return uuid_utils.uuid7().hex


_source: Callable[[], str] = _uuid7_hex


def new_id() -> str:
    return _source()


def set_id_source(source: Callable[[], str] | None) -> None:
    """Tests may install a deterministic id source; ``None`` restores UUIDv7."""
    global _source
    _source = source or _uuid7_hex
