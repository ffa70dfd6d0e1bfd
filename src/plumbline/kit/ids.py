"""Time-sortable string identifiers (UUIDv7 as 32 lowercase hex characters)."""

import uuid_utils


def new_id() -> str:
    return uuid_utils.uuid7().hex
