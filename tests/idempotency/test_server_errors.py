"""A 5xx answer is not kept: the request wrote nothing, and a retry with the same key runs
again. Provoked for real (a cloud provider this server has not configured: 503), and, for a
failure in the middle of a write, through the route class itself on a test-only router (an
endpoint that writes, then fails as the test says), with the app's real error handling."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from plumbline.audit.service import audit_as
from plumbline.config import settings
from plumbline.db import DB
from plumbline.errors import NotConfigured, install_error_handlers
from plumbline.kit.ids import new_id
from plumbline.kit.middleware import RequestContextMiddleware
from plumbline.kit.responses import ORJSONResponse
from plumbline.routing import make_router
from tests.factories import World, audit_entries
from tests.idempotency.helpers import REPLAYED, keyed, new_key, stored

ORIGIN = "http://127.0.0.1:8000"


async def test_a_503_is_not_kept(client: httpx.AsyncClient, world: World) -> None:
    assert settings.google_client_id is None
    key, url = new_key(), "/api/v1/cloud/google/browse"
    for body in ({}, {}, {"folderId": "another-body"}):  # never a replay, never a 422
        response = await client.post(url, json=body, headers=keyed(world.member.headers, key))
        assert response.status_code == 503, response.text
        assert response.json()["code"] == "NOT_CONFIGURED"
        assert REPLAYED not in response.headers
    assert await stored(key) == []


def failing_app(outcomes: list[int]) -> FastAPI:
    """The route class on a router of its own: each call writes an audit row for the path's
    marker, then answers the next of ``outcomes`` (500: an unexpected exception)."""
    router = make_router(tags=["test"])

    @router.post("/written/{marker}")
    async def written(marker: str, db: DB) -> ORJSONResponse:
        await audit_as(db, "system", ("test", marker), "test.written")
        outcome = outcomes.pop(0)
        if outcome == 500:
            raise RuntimeError("the database went away")
        if outcome == 503:
            raise NotConfigured()
        return ORJSONResponse({"marker": marker, "written": True})

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router, prefix="/api/v1")
    app.add_middleware(RequestContextMiddleware)
    return app


async def test_a_failed_write_keeps_no_key_and_the_retry_runs_again() -> None:
    outcomes = [500, 503, 200]
    transport = httpx.ASGITransport(app=failing_app(outcomes))
    key, marker = new_key(), new_id()
    async with httpx.AsyncClient(transport=transport, base_url=ORIGIN) as client:

        async def post() -> httpx.Response:
            return await client.post(f"/api/v1/written/{marker}", headers={"Idempotency-Key": key})

        for status, code in ((500, "INTERNAL"), (503, "NOT_CONFIGURED")):
            failed = await post()
            assert (failed.status_code, failed.json()["code"]) == (status, code)
            assert await stored(key) == []
            assert await audit_entries(marker) == []  # the write was rolled back

        done = await post()
        assert done.status_code == 200 and REPLAYED not in done.headers
        replay = await post()  # the endpoint is not called again: no outcome is left
        assert replay.status_code == 200 and replay.headers[REPLAYED] == "true"
        assert replay.content == done.content
    assert outcomes == []
    assert len(await audit_entries(marker)) == 1
    assert len(await stored(key)) == 1
