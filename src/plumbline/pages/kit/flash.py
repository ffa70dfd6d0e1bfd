"""Flash messages: what a form's POST did, said on the page it redirects to ("Issue #12
created"), once. Kept in a short signed cookie between the two requests."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Literal

import orjson
from fastapi import Request
from starlette.responses import Response

from plumbline.config import settings
from plumbline.kit import crypto

FLASH_COOKIE = "plumbline_flash"
Level = Literal["ok", "warn", "error"]


@dataclass(frozen=True)
class Flash:
    level: Level
    message: str


def flash(response: Response, message: str, level: Level = "ok") -> Response:
    """Say ``message`` on the next page this browser opens."""
    payload = base64.urlsafe_b64encode(orjson.dumps([[level, message[:300]]])).decode()
    response.set_cookie(
        FLASH_COOKIE,
        crypto.signed(payload, "flash"),
        max_age=120,
        path="/",
        httponly=True,
        samesite="lax",
        secure=settings.public_url.startswith("https://"),
    )
    return response


def take_flashes(request: Request) -> list[Flash]:
    """The messages waiting for this page (the response clears the cookie)."""
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw or len(raw) > 2000:
        return []
    payload = crypto.unsign(raw, "flash")
    if payload is None:
        return []
    try:
        items = orjson.loads(base64.urlsafe_b64decode(payload))
        return [Flash(level, str(message)) for level, message in items if level in LEVELS]
    except (ValueError, TypeError):
        return []


LEVELS = ("ok", "warn", "error")
