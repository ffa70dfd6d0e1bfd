"""Endpoints receive their unit of work from the route class, not as FastAPI dependencies."""

from fastapi import routing
from fastapi.routing import APIRoute

from plumbline.db import get_db, get_uow
from plumbline.routing import dependency_calls


def test_no_route_solves_the_unit_of_work_as_a_dependency(app) -> None:  # type: ignore[no-untyped-def]
    routes = [
        ctx.original_route
        for ctx in routing.iter_route_contexts(app.routes)
        if isinstance(ctx.original_route, APIRoute)
    ]
    solved = [r.path for r in routes if set(dependency_calls(r.dependant)) & {get_db, get_uow}]
    assert solved == []
    assert len(routes) > 100
