"""The pages' static files: content-hashed names cached for a year, gzip when accepted.

``static_url("js/palette.js")`` is ``/static/js/palette.<16 hex>.js``: a new version is a new
URL, so each answer is immutable. Vendored libraries live under ``static/vendor/<lib>/`` with
their LICENSE; ``static/vendor/manifest.json`` names each file's version and sha256 (a test
checks them; ``make vendor`` fetches them from the npm registry, ``scripts/vendor``).
"""

from __future__ import annotations

import gzip
import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from fastapi import Request
from starlette.responses import Response

from plumbline.auth.deps import Public
from plumbline.errors import NotFound, found
from plumbline.routing import make_router

STATIC = "/static"
TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}
COMPRESSED = {".css", ".js", ".svg", ".json", ".webmanifest"}
YEAR = "public, max-age=31536000, immutable"
_HASHED = re.compile(
    r"(?P<folder>(?:[a-z0-9][a-z0-9_.-]*/)*)(?P<stem>[a-z0-9][a-z0-9_.-]*?)"
    r"\.(?P<digest>[0-9a-f]{16})(?P<suffix>\.[a-z]+)"
)


@dataclass(frozen=True)
class Asset:
    data: bytes
    gzipped: bytes | None
    digest: str
    media_type: str


@cache
def asset(path: str) -> Asset:
    """A file of ``static/`` (``FileNotFoundError`` when there is none), compressed once."""
    if ".." in path.split("/"):
        raise FileNotFoundError(path)
    suffix = path[path.rfind(".") :]
    if suffix not in TYPES:
        raise FileNotFoundError(path)
    data = resources.files("plumbline.pages").joinpath("static", *path.split("/")).read_bytes()
    # mtime=0: the same bytes on every process and every start.
    packed = gzip.compress(data, 9, mtime=0) if suffix in COMPRESSED else None
    digest = hashlib.sha256(data).hexdigest()[:16]
    return Asset(
        data, packed if packed and len(packed) < len(data) else None, digest, TYPES[suffix]
    )


def static_url(path: str) -> str:
    """The hashed URL of ``static/<path>``."""
    dot = path.rfind(".")
    return f"{STATIC}/{path[:dot]}.{asset(path).digest}{path[dot:]}"


router = make_router(tags=["pages"], dependencies=[Public], include_in_schema=False)


@router.get(STATIC + "/{path:path}")
async def static_file(path: str, request: Request) -> Response:
    """A stylesheet, script or image of the pages, by its hashed name."""
    match = found(_HASHED.fullmatch(path), "No such file")
    name = match["folder"] + match["stem"] + match["suffix"]
    try:
        file = asset(name)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise NotFound("No such file") from None
    # A page of an older release asking for what has changed since gets today's file, unkept.
    current = file.digest == match["digest"]
    headers = {"Cache-Control": YEAR if current else "no-cache", "Vary": "Accept-Encoding"}
    etag = f'"{file.digest}"'
    headers["ETag"] = etag
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    accepts = "gzip" in request.headers.get("accept-encoding", "")
    if file.gzipped is not None and accepts:
        headers["Content-Encoding"] = "gzip"
        return Response(file.gzipped, media_type=file.media_type, headers=headers)
    return Response(file.data, media_type=file.media_type, headers=headers)
