"""Every answer of a route whose credential is a token in its path (``{token}``) is kept by no
cache and sent on as no Referer, errors included (issue 40 item 6): the route class does it,
so a new token route cannot miss it."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import httpx
from fastapi import routing
from fastapi.routing import APIRoute

from plumbline.kit import crypto
from plumbline.kit.ids import new_id
from plumbline.kit.storage import local_storage
from plumbline.routing import UnitOfWorkRoute
from tests.calendar_feed.helpers import make_feed, path_of
from tests.factories import World
from tests.occupant.test_portal import make_link as make_occupant_link
from tests.occupant.test_portal import ops_world, submit
from tests.portal.test_invite_tokens import make_link as make_invite_link
from tests.proposal.flow import sent_with_link

# The account pages may keep their own policy, same-origin, so that their forms' posts carry
# an Origin (docs/decisions.md, "Identity"): their URL still reaches no other site.
SAME_ORIGIN = re.compile(r"/account/.*")
# Bytes behind a short-lived signed URL: the browser may keep a successful answer.
CACHED_PRIVATELY = {"/api/v1/storage/object/{token}"}


def _token_routes(app) -> dict[str, list[APIRoute]]:  # type: ignore[no-untyped-def]
    """The full path of every route with a ``{token}``, with the routes answering on it."""
    found: dict[str, list[APIRoute]] = {}
    for ctx in routing.iter_route_contexts(app.routes):
        if isinstance(ctx.original_route, APIRoute) and "{token}" in str(ctx.path):
            found.setdefault(str(ctx.path), []).append(ctx.original_route)
    return found


def _assert_private(response: httpx.Response, path: str) -> None:
    where = f"{response.request.method} {path}: {response.status_code}"
    assert response.headers.get("cache-control") == "no-store", where
    policies = {"no-referrer", "same-origin"} if SAME_ORIGIN.fullmatch(path) else {"no-referrer"}
    assert response.headers.get("referrer-policy") in policies, where


async def test_every_answer_of_every_token_route_is_no_store(
    client: httpx.AsyncClient,
    app,  # type: ignore[no-untyped-def]
) -> None:
    """Unknown tokens (404, 403, 400...) and a method the path does not answer (405)."""
    routes = _token_routes(app)
    assert len(routes) >= 15 and "/api/v1/calendar/{token}.ics" in routes
    for path, answering in routes.items():
        url = re.sub(r"\{token\}", crypto.random_token(), path)
        url = re.sub(r"\{\w+\}", lambda _: new_id(), url)
        methods = {method for route in answering for method in route.methods}
        for method in sorted(methods):
            body = {"json": {}} if method in ("POST", "PUT", "PATCH") else {}
            response = await client.request(method, url, **body)  # type: ignore[arg-type]
            assert response.status_code >= 400, f"{method} {path}"
            _assert_private(response, path)
        other = next(m for m in ("DELETE", "PATCH", "PUT") if m not in methods)
        refused = await client.request(other, url)
        assert refused.status_code == 405, f"{other} {path}"
        _assert_private(refused, path)


def test_only_the_signed_object_reads_keep_their_own_cache(app) -> None:  # type: ignore[no-untyped-def]
    kept = {
        path
        for path, answering in _token_routes(app).items()
        for route in answering
        if isinstance(route, UnitOfWorkRoute) and route.cached_privately
    }
    assert kept == CACHED_PRIVATELY
    assert all(
        isinstance(route, UnitOfWorkRoute)
        for answering in _token_routes(app).values()
        for route in answering
    )


async def test_successful_token_reads_are_no_store(
    client: httpx.AsyncClient, world: World, outbox: Path
) -> None:
    public = {"Origin": ""}
    invite = await make_invite_link(client, world)
    ops = await ops_world()
    occupant = (await make_occupant_link(client, ops))["token"]
    receipt = await submit(client, occupant, f"riley-{new_id()}@example.com")
    _, proposal = await sent_with_link(client, world, outbox)
    feed = path_of(await make_feed(client, world.member.headers))
    for path, method in (
        (f"/api/v1/invites/{invite}", "GET"),
        (f"/api/v1/occupant/{occupant}/meta", "GET"),
        (receipt["trackingUrl"], "GET"),
        (proposal, "GET"),
        (feed, "GET"),
        (feed, "HEAD"),
    ):
        response = await client.request(method, path, headers=public)
        assert response.status_code == 200, f"{method} {path}: {response.text}"
        assert response.headers["cache-control"] == "no-store", path
        assert response.headers["referrer-policy"] == "no-referrer", path


async def test_a_signed_object_read_keeps_its_private_cache(client: httpx.AsyncClient) -> None:
    backend = local_storage()
    assert backend is not None
    key = f"tests/{new_id()}.txt"
    await backend.put_bytes(key, b"hello", "text/plain")
    url = await backend.presign_get(key, expires_in=timedelta(minutes=5))
    read = await client.get(url)
    assert read.status_code == 200 and read.content == b"hello"
    assert read.headers["cache-control"] == "private, max-age=3600"
    assert read.headers["referrer-policy"] == "no-referrer"
    await backend.delete(key)
    gone = await client.get(url)
    assert gone.status_code == 404
    assert gone.headers["cache-control"] == "no-store"
