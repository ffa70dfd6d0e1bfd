"""The connectors' small rules: callback targets, file names, the browse cursor, tokens.

Where a callback may send the user, what a provider's file may be called here, the browse
cursor, the token columns.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import orjson

from plumbline.cloud import oauth
from plumbline.errors import InvalidField
from plumbline.kit import clock

ACTIVE, RECONNECT = "ACTIVE", "RECONNECT_REQUIRED"
_UNSAFE_NAME = re.compile(r"[/\\\x00-\x1f\x7f-\x9f]+")
MAX_NAME = 255


def check_return_to(value: str) -> str:
    """Only a path on this site: ``/...``, never ``//host`` or ``/\\host`` (which browsers
    read as another site), nor a scheme or control characters."""
    if (
        not value.startswith("/")
        or value.startswith(("//", "/\\"))
        or any(c in value for c in "\\\r\n\t")
    ):
        raise InvalidField(
            "returnTo",
            "must be a path starting with a single /",
            error="returnTo must be a relative path such as /projects",
        )
    return value


def file_name(name: str) -> str:
    """A provider's file name as one of ours: no slashes or control characters, 255 at most
    (the extension kept, as it decides the type)."""
    cleaned = _UNSAFE_NAME.sub("_", name).strip() or "file"
    if len(cleaned) > MAX_NAME:
        stem, dot, ext = cleaned.rpartition(".")
        ext = ext[:16] if dot else ""
        cleaned = f"{stem[: MAX_NAME - len(ext) - 1]}.{ext}" if ext else cleaned[:MAX_NAME]
    return cleaned


def encode_cursor(folder_id: str | None, page_token: str) -> str:
    return base64.urlsafe_b64encode(orjson.dumps({"f": folder_id, "t": page_token})).decode()


def decode_cursor(cursor: str) -> tuple[str | None, str]:
    try:
        data = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        folder, token = data["f"], data["t"]
        if (folder is None or isinstance(folder, str)) and isinstance(token, str) and token:
            return folder, token
    except (binascii.Error, ValueError, KeyError, TypeError):
        pass
    raise InvalidField(
        "cursor", "use the X-Next-Cursor of the previous page", error="The cursor is not valid"
    )


def token_values(token: dict[str, Any], refresh: str | None) -> dict[str, Any]:
    """The columns of a token response (sealed); a response without a refresh token keeps the
    one we have (Dropbox and Google send it only once)."""
    new_refresh = token.get("refresh_token") or refresh
    return {
        "access_token": oauth.seal(str(token["access_token"])),
        "refresh_token": oauth.seal(new_refresh) if new_refresh else None,
        "expires_at": oauth.expiry_of(token),
        "status": ACTIVE,
        "updated_at": clock.now(),
    }
