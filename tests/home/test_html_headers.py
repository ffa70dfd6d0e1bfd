"""Every HTML answer carries `X-Content-Type-Options: nosniff` and a Content-Security-Policy that
lets the page load nothing from another origin (the middleware adds both where the route set
none); JSON answers carry nosniff too."""

from __future__ import annotations

import re

import httpx
import pytest

from plumbline.config import settings
from tests.factories import World, make_world
from tests.proposal.test_endpoints import create

# Routes answering text/html and where each test below reaches them; the OpenAPI check fails
# when a new one appears without a test here.
TESTED = {
    "/api/payments/local/checkout/{token}",
    "/api/payments/local/portal/{token}",
    "/api/v1/projects/{projectId}/proposals/{proposalId}/preview",
}
DOCS_PAGES = ("/api/v1/docs", "/api/v1/redoc", "/api/v1/docs/oauth2-redirect")


def policy(response: httpx.Response) -> dict[str, list[str]]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["x-content-type-options"] == "nosniff"
    directives: dict[str, list[str]] = {}
    for part in response.headers["content-security-policy"].split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def assert_restrictive(response: httpx.Response) -> dict[str, list[str]]:
    """Nothing fetched from anywhere but the server: no wildcard, no scheme, no other host
    (the one outside URL allowed is where the billing pages' forms land, the public URL)."""
    directives = policy(response)
    assert directives["default-src"] in (["'none'"], ["'self'"])
    public = re.match(r"https?://[^/]+", settings.public_url)
    assert public is not None
    for name, sources in directives.items():
        for source in sources:
            assert "*" not in source, (name, source)
            assert (
                not re.fullmatch(r"[a-z][a-z0-9+.-]*:", source)
                or source == "data:"
                or (source == "blob:" and name == "worker-src")
            ), (name, source)
            if "://" in source:
                assert name == "form-action" and source == public.group(0), (name, source)
    assert directives["base-uri"] == ["'none'"]
    assert "frame-ancestors" in directives
    return directives


async def test_the_front_door_and_the_docs(client: httpx.AsyncClient) -> None:
    door = await client.get("/", headers={"Accept": "text/html"})
    assert door.status_code == 303 and door.headers["x-content-type-options"] == "nosniff"
    for path in DOCS_PAGES:
        assert_restrictive(await client.get(path))
    as_json = await client.get("/", headers={"Accept": "application/json"})
    assert as_json.headers["x-content-type-options"] == "nosniff"


async def test_the_proposal_preview(client: httpx.AsyncClient, world: World) -> None:
    proposal = await create(client, world, coverLetter="Dear {{client.name}}")
    preview = await client.post(
        f"/api/v1/projects/{world.project.id}/proposals/{proposal['id']}/preview",
        headers=world.member.headers,
    )
    directives = assert_restrictive(preview)
    assert directives["default-src"] == ["'none'"] and "script-src" not in directives


async def test_the_local_billing_pages(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "billing", "local")
    world = await make_world()
    checkout = await client.post(
        "/api/payments/checkout",
        json={"workspaceId": world.workspace.id, "plan": "team"},
        headers=world.owner.headers,
    )
    path = checkout.json()["url"].removeprefix(settings.public_url)
    assert_restrictive(await client.get(path))
    assert (await client.post(path)).status_code == 303
    portal = await client.post(
        "/api/payments/portal",
        json={"workspaceId": world.workspace.id},
        headers=world.owner.headers,
    )
    assert_restrictive(await client.get(portal.json()["url"].removeprefix(settings.public_url)))


async def test_every_html_route_is_tested_here(client: httpx.AsyncClient) -> None:
    described = (await client.get("/api/v1/openapi.json")).json()["paths"]
    html = {
        path
        for path, operations in described.items()
        for operation in operations.values()
        if "text/html" in operation.get("responses", {}).get("200", {}).get("content", {})
    }
    assert html == TESTED
