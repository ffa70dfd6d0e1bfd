"""The route class every router uses: one unit of work per request, errors rendered once."""

from __future__ import annotations

import functools
import inspect
import logging
import re
from collections.abc import Callable, Coroutine, Iterator
from contextvars import ContextVar
from typing import Annotated, Any, TypeVar, get_origin

from fastapi import APIRouter, Request, Response, params
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from sqlalchemy.exc import IntegrityError
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Match, Route
from starlette.types import Scope

from plumbline.db import AfterCommit, UnitOfWork, database, get_db, get_uow
from plumbline.errors import AppError, Conflict, error_response
from plumbline.kit.responses import ORJSONResponse

log = logging.getLogger("plumbline")
F = TypeVar("F", bound=Callable[..., Any])


def make_router(**kwargs: Any) -> APIRouter:
    """Every domain router: unit-of-work routes, orjson responses."""
    return DomainRouter(
        route_class=UnitOfWorkRoute, default_response_class=ORJSONResponse, **kwargs
    )


class DomainRouter(APIRouter):
    """Says "no route here" with one regex search over its routes' paths before FastAPI tries
    them one by one. FastAPI walks the routers of ``api.py`` in turn, every route of each, and
    once per nesting level: for a router listed thirteenth that was 15% of a list request's time."""

    _tails: re.Pattern[str] | None = None
    _tails_for = -1

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and not self._may_match(scope["path"]):
            return Match.NONE, {}
        return super().matches(scope)

    def _may_match(self, path: str) -> bool:
        if self._tails_for != len(self.routes):  # routes are added at import time
            self._tails = _tails(self.routes)
            self._tails_for = len(self.routes)
        return self._tails is None or self._tails.search(path) is not None


_PARAMETER = re.compile(r"{[^}:]*(:[^}]*)?}")


def _tails(routes: list[BaseRoute]) -> re.Pattern[str] | None:
    """A pattern that finds any of the routes' own paths at the end of a request path (the
    include prefixes come before it); None when a route is not a plain path route."""
    patterns = []
    for route in routes:
        if not isinstance(route, Route):
            return None
        path, pattern, last = route.path, "", 0
        for parameter in _PARAMETER.finditer(path):
            pattern += re.escape(path[last : parameter.start()])
            pattern += ".*" if parameter.group(1) == ":path" else "[^/]+"
            last = parameter.end()
        patterns.append(pattern + re.escape(path[last:]))
    return re.compile(f"(?:{'|'.join(patterns)})$")


def read_only(endpoint: F) -> F:
    """Marks a GET route that only reads (put it under ``@router.get``): its session runs
    without a transaction on PostgreSQL (``Database.read_sessionmaker``). The one write it may
    make is the caller's credential touch (API key last use, session sliding expiry), a single
    UPDATE written on success. A GET that writes anything else keeps the default."""
    endpoint.__plumbline_read_only__ = True  # type: ignore[attr-defined]
    return endpoint


_unit_of_work: ContextVar[UnitOfWork] = ContextVar("unit_of_work")


class UnitOfWorkRoute(APIRoute):
    """Opens a session, commits once when the response is a success, rolls back otherwise.
    It hands the endpoint its ``UoW`` and ``DB`` parameters itself (``_given_unit_of_work``)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, _given_unit_of_work(endpoint), **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        reads_only = getattr(self.endpoint, "__plumbline_read_only__", False)
        if reads_only and not (self.methods or set()) <= {"GET", "HEAD"}:
            raise ValueError(f"{self.path}: only GET routes may be read_only")

        async def run(request: Request) -> Response:
            sessions = database.read_sessionmaker if reads_only else database.sessionmaker
            session = sessions()
            uow = UnitOfWork(session, respond_first=True)
            request.state.uow = uow
            given = _unit_of_work.set(uow)
            try:
                response = await handler(request)
                for callback in getattr(request.state, "on_response", ()):
                    callback(response)
                if response.status_code < 400:
                    await uow.commit()
                    _run_after_sending(response, uow.take_after_response())
                else:
                    await uow.rollback()
                return response
            except (AppError, HTTPException, RequestValidationError):
                await uow.rollback()
                raise
            except IntegrityError:
                await uow.rollback()
                log.warning("integrity error", exc_info=True)
                return error_response(Conflict("This conflicts with existing data"))
            except Exception:
                await uow.rollback()
                log.exception("unhandled error")
                return ORJSONResponse(
                    {"error": "Internal server error", "code": "INTERNAL"}, status_code=500
                )
            finally:
                _unit_of_work.reset(given)
                # Committed or rolled back, the session holds no connection any more: closing
                # it would only detach its objects, which go with it.
                if session.in_transaction():
                    await session.close()

        return run


def _given_unit_of_work(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """The endpoint without its parameters typed ``db.UoW`` or ``db.DB``, which it receives
    from the route's unit of work. As FastAPI dependencies they cost a request 2-3% of its
    instructions each (a dependency is solved, cached and awaited), for a value the route
    already holds. Elsewhere than under this route class they stay ordinary dependencies."""
    signature = inspect.signature(endpoint, eval_str=True)
    given = {
        name: part
        for name, parameter in signature.parameters.items()
        if (part := _unit_of_work_part(parameter.annotation)) is not None
    }
    if not given:
        return endpoint

    @functools.wraps(endpoint)
    async def with_unit_of_work(**values: Any) -> Any:
        uow = _unit_of_work.get()
        for name, part in given.items():
            values[name] = uow if part is get_uow else uow.session
        return await endpoint(**values)

    kept = [p for name, p in signature.parameters.items() if name not in given]
    with_unit_of_work.__signature__ = signature.replace(parameters=kept)  # type: ignore[attr-defined]
    return with_unit_of_work


def _unit_of_work_part(annotation: Any) -> Callable[..., Any] | None:
    """``get_uow`` or ``get_db`` when the annotation is ``UoW`` or ``DB``."""
    if get_origin(annotation) is not Annotated:
        return None
    for meta in annotation.__metadata__:
        if isinstance(meta, params.Depends) and meta.dependency in (get_uow, get_db):
            return meta.dependency
    return None


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
