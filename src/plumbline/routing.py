"""The route class every router uses: one unit of work per request."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

from fastapi import APIRouter, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from sqlalchemy.exc import IntegrityError
from starlette._exception_handler import wrap_app_handling_exceptions
from starlette.background import BackgroundTask
from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from plumbline import conditional
from plumbline.constraints import conflict_for
from plumbline.db import AfterCommit, UnitOfWork, database
from plumbline.idempotency.service import attempting, begin, guarded
from plumbline.kit.responses import ORJSONResponse

log = logging.getLogger("plumbline")
F = TypeVar("F", bound=Callable[..., Any])


def make_router(**kwargs: Any) -> APIRouter:
    """Every domain router: unit-of-work routes, orjson responses."""
    return APIRouter(route_class=UnitOfWorkRoute, default_response_class=ORJSONResponse, **kwargs)


def transactional(endpoint: F) -> F:
    """Marks a GET route that writes (put it under ``@router.get``): it runs in a transaction,
    as every other method does. Every other GET reads without one on PostgreSQL
    (``Database.read_sessionmaker``): each statement commits on its own, and the one write it
    may make, the caller's credential touch (API key last use, session sliding expiry), is a
    single UPDATE written on success."""
    endpoint.__plumbline_transactional__ = True  # type: ignore[attr-defined]
    return endpoint


def cached_privately(endpoint: F) -> F:
    """Marks a ``{token}`` route whose successful answers keep their own ``Cache-Control``:
    bytes behind a short-lived signed URL, which the browser may keep as it keeps object
    storage's. Its error answers are ``no-store``, as every token route's."""
    endpoint.__plumbline_cached_privately__ = True  # type: ignore[attr-defined]
    return endpoint


def carries_token(route: APIRoute) -> bool:
    """Whether ``route``'s credential is the token in its path."""
    return "{token}" in route.path_format


def _token_headers(send: Send, *, keep_success: bool) -> Send:
    """Every answer of a token route, errors included: never stored by a cache (the URL is
    the credential, and 404 and 410 are cacheable by default) nor sent on as a Referer (unless
    the route chose its own policy, as the account pages' ``same-origin``)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers.setdefault("referrer-policy", "no-referrer")
            if not (keep_success and message["status"] < 400):
                headers["cache-control"] = "no-store"
        await send(message)

    return sending


def reads_only(route: APIRoute) -> bool:
    """Whether ``route`` runs without a transaction: a GET not marked ``transactional``."""
    methods = route.methods or set()
    if getattr(route.endpoint, "__plumbline_transactional__", False):
        if not methods <= {"GET", "HEAD"}:
            raise ValueError(f"{route.path}: only GET routes are marked transactional")
        return False
    return bool(methods) and methods <= {"GET", "HEAD"}


class JsonRequest(Request):
    """A request whose JSON body must be UTF-8 (PRODUCT §1). ``json.loads`` on bytes would
    guess UTF-16 or UTF-32 from the first bytes; here the body is decoded as UTF-8 (a leading
    byte order mark ignored) or refused as broken JSON (400 ``INVALID_JSON``)."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                text = body.decode("utf-8").removeprefix("\ufeff")
            except UnicodeDecodeError as error:
                shown = body.decode("utf-8", "replace")
                raise json.JSONDecodeError("the body must be UTF-8", shown, error.start) from None
            if "\x00" in text:  # never in JSON text: UTF-16 or UTF-32 without a byte order mark
                raise json.JSONDecodeError("the body must be UTF-8", text, text.index("\x00"))
            self._json = json.loads(text)
        return self._json


class UnitOfWorkRoute(APIRoute):
    """Opens a session, commits once when the response is a success, rolls back otherwise.
    A GET reads without a transaction on PostgreSQL unless marked ``transactional``.
    Endpoints and dependencies take it as ``db: DB`` or ``uow: UoW`` (``plumbline.db``).
    Conditional requests (ETag, If-Match, If-None-Match) are answered here for every route
    (``plumbline.conditional``). A POST under /api/v1 with an ``Idempotency-Key`` replays the
    key's first answer, which is stored in the same transaction as the writes that made it
    (``plumbline.idempotency``). A route whose path carries its credential (``{token}``)
    sends ``Cache-Control: no-store`` and ``Referrer-Policy: no-referrer`` on every answer
    (``_token_headers``)."""

    # FastAPI's handler of this route, which a conditional write on its path runs to read the
    # resource first (in the write's own unit of work).
    read_handler: Callable[[Request], Coroutine[Any, Any, Response]]

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if "POST" in {method.upper() for method in kwargs.get("methods") or ()}:
            endpoint = guarded(endpoint)
        super().__init__(path, endpoint, **kwargs)
        self.token_in_path = carries_token(self)
        self.cached_privately = getattr(endpoint, "__plumbline_cached_privately__", False)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.token_in_path:
            await super().handle(scope, receive, send)
            return
        send = _token_headers(send, keep_success=self.cached_privately)
        # Refusals are answered here (Starlette's wrapper, as FastAPI's handler uses), not by
        # the app's exception middleware, so they go through ``send`` too: this adds the 405.
        answered = wrap_app_handling_exceptions(super().handle, Request(scope, receive))
        await answered(scope, receive, send)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = self.read_handler = super().get_route_handler()
        read = reads_only(self)
        places: list[conditional.Place] = []  # this route's, found on its first request

        async def run(request: Request) -> Response:
            if not places:
                places.append(conditional.place_of(self, request.app.routes))
            place = places[0]
            conditions = conditional.preconditions(request) if place.read or place.write else None
            # FastAPI parses the body through the request it is handed (its documented way to
            # change how a body is read): one place for every route's JSON.
            request = JsonRequest(request.scope, request.receive)
            attempt = await begin(request)
            session = database.read_sessionmaker() if read else database.sessionmaker()
            uow = UnitOfWork(session, respond_first=True, reads_only=read)
            request.state.uow = uow
            try:
                if conditions is not None and place.write:
                    await conditional.check_write(session, request, conditions, place.reader)
                with attempting(attempt):
                    response = await handler(request)
                if attempt is not None and response.status_code < 400:
                    response = await attempt.keep(uow, response)
                for callback in getattr(request.state, "on_response", ()):
                    callback(response)
                if response.status_code >= 400:
                    await uow.rollback()
                    return response
                if place.tagged:
                    response = conditional.answer(response, conditions if place.read else None)
                await uow.commit()
            except IntegrityError as exc:
                await uow.rollback()
                conflict = conflict_for(exc)
                if conflict is None:
                    raise  # a constraint no request should reach: a 500 (kit.middleware)
                raise conflict from exc
            except Exception:
                await uow.rollback()
                raise
            finally:
                # Committed or rolled back, the session holds no connection any more: closing
                # it would only detach its objects, which go with it.
                if session.in_transaction():
                    await session.close()
            _run_after_sending(response, uow.take_after_response())
            return response

        return run


def dependency_calls(dependant: Dependant) -> Iterator[Any]:
    """Every dependency a route (or dependency) solves, at any depth, parents first."""
    for dependency in dependant.dependencies:
        if dependency.call is not None:
            yield dependency.call
        yield from dependency_calls(dependency)


def _run_after_sending(response: Response, callbacks: list[AfterCommit]) -> None:
    """Starlette runs a response's background task once its last byte is sent."""
    if not callbacks:
        return
    previous = response.background

    async def run() -> None:
        if previous is not None:
            await previous()
        for callback in callbacks:
            try:
                await callback()
            except Exception:  # the response is gone: nobody left to tell but the log
                log.exception("work after the response failed")

    response.background = BackgroundTask(run)
