"""The route class every router uses: one unit of work per request, errors rendered once."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from sqlalchemy.exc import IntegrityError
from starlette.exceptions import HTTPException

from plumbline.db import UnitOfWork, database
from plumbline.errors import AppError, Conflict, error_response
from plumbline.kit.responses import ORJSONResponse

log = logging.getLogger("plumbline")


def make_router(**kwargs: Any) -> APIRouter:
    """Every domain router: unit-of-work routes, orjson responses."""
    return APIRouter(route_class=UnitOfWorkRoute, default_response_class=ORJSONResponse, **kwargs)


class UnitOfWorkRoute(APIRoute):
    """Opens a session, commits once when the response is a success, rolls back otherwise."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            async with database.sessionmaker() as session:
                uow = UnitOfWork(session)
                request.state.uow = uow
                try:
                    response = await handler(request)
                    for callback in getattr(request.state, "on_response", ()):
                        callback(response)
                    if response.status_code < 400:
                        await uow.commit()
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

        return run
