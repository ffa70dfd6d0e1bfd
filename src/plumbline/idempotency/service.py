"""An ``Idempotency-Key`` request: its key and fingerprint, the claim, the stored answer."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar, cast
from urllib.parse import parse_qs

from fastapi import Request, Response

from plumbline.db import UnitOfWork, uow_of
from plumbline.idempotency import repository
from plumbline.idempotency.errors import HEADER, AnswerUnreadable, KeyMalformed, KeyReused
from plumbline.kit import clock, crypto
from plumbline.kit.client_address import client_ip
from plumbline.models import IdempotencyKey

F = TypeVar("F", bound=Callable[..., Any])
PREFIX = "/api/v1/"
PAGES = "/app/"  # the app's forms (their key is a field: a browser sends no header)
FORM_FIELD = "submission"
REPLAYED = "Idempotent-Replayed"
KEPT_FOR = timedelta(hours=24)
KEY = re.compile(r"[\x20-\x7e]{1,255}")
# What a replay repeats of the answer's headers: what describes its body and where it points.
# Not those of the exchange (X-Request-Id, rate limits, cookies), which the replay's own
# request sets.
KEPT_HEADERS = frozenset(
    {"content-type", "content-disposition", "content-language", "location", "link", "etag"}
)
SEALED = "idempotency"  # the encryption purpose of stored bodies

_attempt: ContextVar[Attempt | None] = ContextVar("idempotency_attempt", default=None)


def applies(method: str, path: str) -> bool:
    return method == "POST" and path.startswith((PREFIX, PAGES))


def _form_key(body: bytes) -> list[str]:
    """An app form's ``submission`` field: its key (``pages.kit.forms``)."""
    return parse_qs(body.decode("latin-1"), max_num_fields=500).get(FORM_FIELD, [])[:1]


async def begin(request: Request) -> Attempt | None:
    """The request's attempt when it is a POST under ``/api/v1`` with the header (400 when the
    key is malformed or sent twice), or an app form with its ``submission`` field (a double
    click creates one record: the second answer is the first's, the same redirect), else
    None."""
    if not applies(request.method, request.scope["path"]):
        return None
    if request.scope["path"].startswith(PAGES):
        form = "application/x-www-form-urlencoded" in request.headers.get("content-type", "")
        keys = _form_key(await request.body()) if form else []
    else:
        keys = request.headers.getlist(HEADER)
    if not keys:
        return None
    if len(keys) > 1 or not KEY.fullmatch(keys[0]):
        raise KeyMalformed()
    digest = hashlib.sha256(f"POST {request.scope['path']}\n".encode())
    digest.update(request.scope["query_string"] + b"\n")
    digest.update(await request.body())
    return Attempt(request, keys[0], digest.hexdigest())


@contextmanager
def attempting(attempt: Attempt | None) -> Iterator[None]:
    """The attempt the endpoint's guard (``guarded``) sees while the route runs."""
    token = _attempt.set(attempt)
    try:
        yield
    finally:
        _attempt.reset(token)


def guarded(endpoint: F) -> F:
    """``endpoint``, answered instead by the replay of a stored answer when there is one. It
    runs once every dependency has passed: the caller is known, and still allowed."""

    @functools.wraps(endpoint)
    async def guard(*args: Any, **kwargs: Any) -> Any:
        attempt = _attempt.get()
        if attempt is not None:
            replay = await attempt.claim()
            if replay is not None:
                return replay
        return await endpoint(*args, **kwargs)

    return cast(F, guard)


def caller_of(request: Request) -> str:
    """Whose keys these are: the principal the route authenticated (``auth.deps.identified``),
    the cron, or, on a route that takes no credential, the client's address."""
    caller: str | None = getattr(request.state, "caller", None)
    return caller or f"ip:{client_ip(request) or 'unknown'}"


@dataclass
class Attempt:
    request: Request
    key: str
    fingerprint: str  # SHA-256 of the method, path, query and body
    caller: str | None = None  # set once this request holds the key as its first

    async def claim(self) -> Response | None:
        """The replay of the key's stored answer (422 when it was stored for another request),
        or None: this request is the key's first and holds it until its transaction ends. A
        concurrent request with the key waits here until then (PostgreSQL: the advisory lock;
        SQLite: the write lock every transaction takes), and then finds the answer."""
        caller = caller_of(self.request)
        db = uow_of(self.request).session
        with db.no_autoflush:  # waits before the credential touch is written, not after it
            await repository.lock(db, caller, self.key)
            stored = await repository.get(db, caller, self.key)
        if stored is not None and stored.expires_at > clock.now():
            return _replay(stored, self.fingerprint)
        if stored is not None:  # past its 24 hours, not purged yet: as if it were
            await repository.delete_one(db, caller, self.key)
        self.caller = caller
        return None

    async def keep(self, uow: UnitOfWork, response: Response) -> Response:
        """Stores a successful answer in the request's transaction, so that it commits with
        the request's writes or not at all. Should another request with the key have committed
        first (possible only when the route ended its first transaction early,
        ``UnitOfWork.commit_reads``), this one is rolled back and answers the other's replay."""
        if self.caller is None or not hasattr(response, "body"):  # a replay, or a stream
            return response
        now = clock.now()
        kept = {
            "caller": self.caller,
            "key": self.key,
            "fingerprint": self.fingerprint,
            "status_code": response.status_code,
            "headers": [[k, v] for k, v in response.headers.items() if k in KEPT_HEADERS],
            "body": crypto.seal(bytes(response.body), SEALED),
            "created_at": now,
            "expires_at": now + KEPT_FOR,
        }
        if await repository.insert(uow.session, kept):
            return response
        await uow.rollback()
        return _replay(await repository.get(uow.session, self.caller, self.key), self.fingerprint)


def _replay(stored: IdempotencyKey | None, fingerprint: str) -> Response:
    """The stored answer again, marked ``Idempotent-Replayed: true``; 422 when it answered
    another request."""
    if stored is not None and stored.fingerprint != fingerprint:
        raise KeyReused()
    body = crypto.unseal(stored.body, SEALED) if stored is not None else None
    if stored is None or body is None:  # purged meanwhile, or sealed under an older secret
        raise AnswerUnreadable()
    response = Response(body, status_code=stored.status_code)
    response.raw_headers.extend(
        (k.encode("latin-1"), v.encode("latin-1")) for k, v in stored.headers
    )
    response.headers[REPLAYED] = "true"
    return response
