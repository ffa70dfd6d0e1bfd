"""The docs pages' assets: fastapi-offline's copies of Swagger UI and ReDoc, served by the app.

ReDoc's sidebar shows its vendor's logo, an image it fetches from a CDN whatever its options
say: the script is served with that image left out, so the docs pages name no other host."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

import fastapi_offline
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

STATIC = Path(fastapi_offline.__file__).parent / "static"
REDOC_SCRIPT = "redoc.standalone.js"
# The one element that names the CDN: `createElement("img", {alt: "redocly logo", ..., src: ...})`
# (minified); `null` renders nothing where it stood.
_LOGO = re.compile(
    r'[\w$]+\.createElement\("img",\{alt:"redocly logo",'
    r'[^{}]*src:"https://cdn\.redoc\.ly/[^"]*"\}\)'
)


class LogoMissing(RuntimeError):
    """fastapi-offline's ReDoc no longer names its logo as this module expects."""


@cache
def redoc_script() -> tuple[bytes, str]:
    """ReDoc's script without its logo, and its ETag (read once per process)."""
    text = (STATIC / REDOC_SCRIPT).read_text(encoding="utf-8")
    patched, found = _LOGO.subn("null", text)
    if found != 1 or "cdn.redoc.ly" in patched:
        raise LogoMissing(f"expected one CDN logo in {REDOC_SCRIPT}, found {found}")
    body = patched.encode()
    return body, f'"{hashlib.sha256(body).hexdigest()[:32]}"'


class DocsAssets(StaticFiles):
    """fastapi-offline's static files, ReDoc's script without its CDN logo."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path != REDOC_SCRIPT or scope["method"] not in ("GET", "HEAD"):
            return await super().get_response(path, scope)
        body, etag = redoc_script()
        headers = {"ETag": etag}
        sent = dict(scope["headers"]).get(b"if-none-match", b"").decode("latin-1")
        if etag in (tag.strip() for tag in sent.split(",")):
            return Response(status_code=304, headers=headers)
        response = Response(body, media_type="text/javascript; charset=utf-8", headers=headers)
        if scope["method"] == "HEAD":
            response.body = b""  # the length stays the script's
        return response


assets = DocsAssets(directory=STATIC)
