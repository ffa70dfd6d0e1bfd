"""Streaming an object over HTTP: ETag and If-None-Match (304), single byte ranges (206, 416)."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.storage.base import Storage, content_disposition

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


# No object is this large: longer numbers in a Range header are read as this, which also keeps
# them clear of Python's limit on the digits int() converts (a 500 otherwise).
_BEYOND_ANY_OBJECT = 10**18


class Unsatisfiable(Exception):
    pass


def _offset(digits: str) -> int:
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) < 18 else _BEYOND_ANY_OBJECT


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The inclusive ``(start, end)`` of a single-range header; ``None`` to send everything
    (absent, malformed or multi-range headers, which RFC 9110 allows a server to ignore)."""
    if not header:
        return None
    match = _RANGE.match(header.strip().replace(" ", ""))
    if match is None:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    if not first:
        length = _offset(last)
        if length == 0 or size == 0:
            raise Unsatisfiable
        return max(0, size - length), size - 1
    start = _offset(first)
    end = _offset(last) if last else size - 1
    if last and end < start:
        return None
    if start >= size:
        raise Unsatisfiable
    return start, min(end, size - 1)


def _etag_matches(header: str, etag: str) -> bool:
    tags = {t.strip().removeprefix("W/") for t in header.split(",")}
    return "*" in tags or etag in tags


def object_response(
    request: Request,
    storage: Storage,
    key: str,
    *,
    size: int,
    content_type: str,
    etag: str,
    filename: str | None = None,
    cache_control: str = "private, no-cache",
) -> Response:
    """The object's bytes, streamed from the backend in chunks (never held in memory)."""
    headers = {
        "ETag": etag,
        "Accept-Ranges": "bytes",
        "Cache-Control": cache_control,
        "X-Content-Type-Options": "nosniff",
    }
    if filename:
        headers["Content-Disposition"] = content_disposition(filename)
    if_none_match = request.headers.get("if-none-match")
    if if_none_match and _etag_matches(if_none_match, etag):
        return Response(status_code=304, headers=headers)
    range_header = request.headers.get("range")
    if_range = request.headers.get("if-range")
    if if_range and if_range.strip() != etag:
        range_header = None
    try:
        wanted = parse_range(range_header, size)
    except Unsatisfiable:
        return ORJSONResponse(
            {"error": "Requested range not satisfiable", "code": "RANGE_NOT_SATISFIABLE"},
            status_code=416,
            headers={"Content-Range": f"bytes */{size}", "Accept-Ranges": "bytes"},
        )
    status = 200
    start, end = 0, size - 1
    if wanted is not None:
        start, end = wanted
        status = 206
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    headers["Content-Length"] = str(end - start + 1 if size else 0)
    if size == 0:
        return Response(b"", status_code=200, headers=headers, media_type=content_type)
    return StreamingResponse(
        storage.open_range(key, start, end),
        status_code=status,
        headers=headers,
        media_type=content_type,
    )
