"""Conditional requests (RFC 9110 §13) for every route of ``routing.UnitOfWorkRoute``.

A single-resource read, a GET under /api/v1 answering one JSON object, answers an ``ETag``: a
strong hash of its body, so it changes exactly when the answer does; ``If-None-Match`` makes it
304. A write under /api/v1 sent with ``If-Match`` (or ``If-None-Match``) is first checked
against the resource as the GET route of its own path answers it, for the same caller and in
the write's own transaction: 412 ``PRECONDITION_FAILED`` when the tags disagree, and nothing is
written. A path with no such GET has no entity tag: ``If-Match`` fails there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi.routing import APIRoute, RouteContext, iter_route_contexts
from pydantic import BaseModel, RootModel
from sqlalchemy import BigInteger, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import Message

from plumbline.errors import InvalidField, PreconditionFailed
from plumbline.kit import etags

API = "/api/v1/"
Handler = Callable[[Request], Coroutine[Any, Any, Response]]
# Conditional writers of one resource take turns on PostgreSQL (two writers holding the same
# tag must not both pass the check); the lock goes with the transaction. SQLite's
# BEGIN IMMEDIATE already makes every writer wait for the one before.
LOCK = select(func.pg_advisory_xact_lock(bindparam("key", type_=BigInteger)))
MALFORMED = 'entity tags such as "x7", W/"x7" or *, separated by commas'
NONE_MATCHED = "The resource matches the entity tag in If-None-Match"
NO_TAG = "This resource has no entity tag (no single-resource GET answers it): If-Match fails"


@dataclass(frozen=True, slots=True)
class Preconditions:
    if_match: etags.Condition | None
    if_none_match: etags.Condition | None


@dataclass(frozen=True, slots=True)
class Reader:
    """The GET route of a write's path: its route and its FastAPI handler."""

    route: APIRoute
    handler: Handler


@dataclass(frozen=True, slots=True)
class Place:
    """What conditional requests mean on one route, found once from the app's routes."""

    read: bool = False  # a single-resource GET: ETag, 304 (If-None-Match), 412 (If-Match)
    write: bool = False  # a write under /api/v1: If-Match and If-None-Match checked first
    reader: Reader | None = None  # the single-resource GET of the write's path, if any
    tagged: bool = False  # its 200 carries an ETag: the read, and a PATCH that has a reader


def reads_one(route: BaseRoute) -> bool:
    """A GET route declared as answering one JSON object."""
    model = getattr(route, "response_model", None)
    return (
        isinstance(route, APIRoute)
        and "GET" in (route.methods or ())
        and isinstance(model, type)
        and issubclass(model, BaseModel)
        and not issubclass(model, RootModel)
    )


def place_of(route: APIRoute, routes: Sequence[BaseRoute | RouteContext]) -> Place:
    """``route``'s place among ``routes`` (the app's routes, or their contexts)."""
    contexts = list(iter_route_contexts(routes))
    path = next((c.path for c in contexts if c.original_route is route), None)
    if path is None or not path.startswith(API):
        return Place()
    if "GET" in (route.methods or ()):
        return Place(read=True, tagged=True) if reads_one(route) else Place()
    reader = next(
        (
            Reader(c.original_route, handler)
            for c in contexts
            if c.path == path
            and isinstance(c.original_route, APIRoute)
            and reads_one(c.original_route)
            and (handler := getattr(c.original_route, "read_handler", None)) is not None
        ),
        None,
    )
    # A PATCH answers the resource as its GET does (tests/conditional hold it), so the tag of
    # its answer is the tag a GET would give next. A PUT's is not sent (RFC 9110 §9.3.4).
    patch = reader is not None and "PATCH" in (route.methods or ())
    return Place(write=True, reader=reader, tagged=patch)


def preconditions(request: Request) -> Preconditions | None:
    """The request's ``If-Match`` and ``If-None-Match`` (None when it sends neither); 400 for
    a malformed one, before anything is read or written."""
    if_match, if_none_match = _field(request, "If-Match"), _field(request, "If-None-Match")
    if if_match is None and if_none_match is None:
        return None
    return Preconditions(if_match, if_none_match)


def _field(request: Request, name: str) -> etags.Condition | None:
    values = request.headers.getlist(name)
    if not values:
        return None
    try:
        return etags.Condition.parse(", ".join(values))
    except etags.Malformed:
        raise InvalidField(name, MALFORMED) from None


def tag_of(response: Response) -> str | None:
    """The entity tag of a 200 answering one JSON object (None for anything else)."""
    body = getattr(response, "body", None)
    if response.status_code != 200 or not isinstance(body, bytes) or not body.startswith(b"{"):
        return None
    return etags.of(body)


def answer(response: Response, conditions: Preconditions | None) -> Response:
    """A 200 answering one object, with its ``ETag``; for a read with ``conditions``, 304
    (no body, the same headers) when ``If-None-Match`` holds the tag, 412 when ``If-Match``
    does not."""
    tag = tag_of(response)
    if tag is None:
        return response
    response.headers["etag"] = tag
    if conditions is None:
        return response
    outcome = etags.evaluate(conditions.if_match, conditions.if_none_match, tag, safe=True)
    if outcome is etags.Outcome.FAILED:
        raise PreconditionFailed(headers={"ETag": tag})
    if outcome is etags.Outcome.NOT_MODIFIED:
        not_modified = Response(status_code=304, background=response.background)
        not_modified.raw_headers = [
            (name, value)
            for name, value in response.raw_headers
            if name not in (b"content-length", b"content-type")
        ]
        return not_modified
    return response


async def check_write(
    session: AsyncSession, request: Request, conditions: Preconditions, reader: Reader | None
) -> None:
    """412 unless the write's preconditions hold for the resource as its GET answers it now.
    On PostgreSQL it first waits for the other conditional writers of the same path, until
    this transaction ends."""
    current = None
    if reader is not None:
        if session.get_bind().dialect.name == "postgresql":
            await session.execute(LOCK, {"key": _lock_key(request.scope["path"])})
        current = tag_of(await _read(request, reader))
    outcome = etags.evaluate(conditions.if_match, conditions.if_none_match, current, safe=False)
    if outcome is etags.Outcome.PROCEED:
        return
    matched = conditions.if_match is None or (
        current is not None and conditions.if_match.strong_match(current)
    )
    raise PreconditionFailed(
        NO_TAG if reader is None else NONE_MATCHED if matched else None,
        headers={"ETag": current} if current is not None else None,
    )


async def _read(request: Request, reader: Reader) -> Response:
    """The reader's answer to a GET of the request's path by the same caller, in the
    request's unit of work (the scope's ``state`` is shared); its refusals (404, 403) are
    raised as they would be to the GET."""
    scope = {
        **request.scope,
        "method": "GET",
        "query_string": b"",
        "route": reader.route,
        "endpoint": reader.route.endpoint,
    }
    return await reader.handler(Request(scope, _no_body))


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def _lock_key(path: str) -> int:
    digest = hashlib.blake2b(path.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)
