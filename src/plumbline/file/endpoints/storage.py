"""The local backend's signed upload and read URLs (404 when another backend is configured)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

from fastapi import Request, Response
from starlette.requests import ClientDisconnect

from plumbline.auth.deps import Public
from plumbline.errors import BadRequest, Conflict, PayloadTooLarge, found
from plumbline.file.endpoints import BINARY, errors
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.kit.storage import LocalStorage, local_storage
from plumbline.kit.storage.http import object_response
from plumbline.kit.storage.local import GET, PUT, read_token
from plumbline.routing import cached_privately, make_router

router = make_router(tags=["storage"], dependencies=[Public])

LINK_ERRORS = errors(texts={403: "The link's signature is not valid", 410: "The link has expired"})


def _backend() -> LocalStorage:
    return found(local_storage(), "The local storage backend is not in use")


async def _body(request: Request) -> AsyncIterator[bytes]:
    try:
        async for chunk in request.stream():
            if chunk:
                yield chunk
    except ClientDisconnect:
        raise BadRequest("The upload was interrupted", code="UPLOAD_INTERRUPTED") from None


@router.put(
    "/storage/upload/{token}",
    response_model=Ok,
    responses={**LINK_ERRORS, **errors(texts={409: "The object was already uploaded"})},
    openapi_extra={
        "requestBody": {"required": True, "content": BINARY},
    },
)
async def upload_object(token: str, request: Request) -> ORJSONResponse:
    """Receive the bytes of a presigned upload (local storage backend)."""
    backend = _backend()
    claims = read_token(token, PUT)
    key, max_size = str(claims["k"]), int(claims["n"])
    declared = request.headers.get("content-length")
    if declared and declared.isdecimal() and int(declared) > max_size:
        raise PayloadTooLarge("More bytes than the upload declared")
    if await backend.head(key) is not None:
        raise Conflict("This object has already been uploaded", code="ALREADY_UPLOADED")
    await backend.put_stream(key, _body(request), request.headers.get("content-type", ""), max_size)
    return ORJSONResponse({"ok": True})


@router.get(
    "/storage/object/{token}",
    response_class=Response,
    responses={
        200: {"content": BINARY, "description": "The object's bytes"},
        206: {"content": BINARY, "description": "The requested byte range"},
        304: {"description": "Not modified (If-None-Match)"},
        **errors(416),
        **LINK_ERRORS,
    },
)
@cached_privately
async def read_object(token: str, request: Request) -> Response:
    """Stream a stored object through a presigned read URL (local backend); supports Range."""
    backend = _backend()
    claims = read_token(token, GET)
    key = str(claims["k"])
    size = found(await backend.head(key), "The stored object no longer exists")
    etag = '"' + hashlib.sha256(key.encode()).hexdigest()[:32] + '"'
    return object_response(
        request,
        backend,
        key,
        size=size,
        content_type=claims.get("t") or "application/octet-stream",
        etag=etag,
        filename=claims.get("f"),
        cache_control="private, max-age=3600",
    )
