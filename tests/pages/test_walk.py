"""The page walk (PRODUCT §18, Tests): every page route of the web application, taken from the
router, opened as a member (it renders), as a person of another workspace (the 404 page) and as
an anonymous visitor (sign in, then back). A page route without a row in ``PAGES`` fails the
walk. (Next: the same walk in Chromium with axe, no console error and no outside request.)"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import routing
from fastapi.routing import APIRoute

from tests.factories import World, make_world
from tests.issue.helpers import create_issue


@dataclass(frozen=True)
class Row:
    """How a page answers: ``member`` the status for a member of the project's workspace
    (with what they may do), ``stranger`` for a person of another workspace."""

    member: int = 200
    stranger: int = 404


PAGES: dict[str, Row] = {
    "/app/": Row(member=303, stranger=303),
    "/app/help/keys": Row(stranger=200),
    "/app/workspaces/new": Row(stranger=200),
    "/app/workspaces/{workspaceId}": Row(),
    "/app/workspaces/{workspaceId}/projects/new": Row(),
    "/app/projects/{projectId}": Row(),
    "/app/projects/{projectId}/more": Row(),
    "/app/projects/{projectId}/issues": Row(),
    "/app/projects/{projectId}/issues/board": Row(),
    "/app/projects/{projectId}/issues/new": Row(),
    "/app/projects/{projectId}/issues/{issueId}": Row(),
    # The person's own: anyone signed in opens them (another workspace's person too).
    "/app/notifications": Row(stranger=200),
    "/app/notifications/bell": Row(stranger=200),
    "/app/search": Row(stranger=200),
}
# Routes under /app that are not pages to open: streams and form targets.
NOT_PAGES = {"/app", "/app/live", "/app/projects/{projectId}/live"}


def page_routes(app: Any) -> list[str]:
    # FastAPI keeps included routers unflattened: their routes with their full paths.
    return sorted(
        {
            path
            for ctx in routing.iter_route_contexts(app.routes)
            if isinstance(ctx.original_route, APIRoute)
            and (path := str(ctx.path)).startswith("/app")
            and "GET" in ctx.original_route.methods
            and path not in NOT_PAGES
        }
    )


def test_every_page_route_has_a_row(app: Any) -> None:
    routes = page_routes(app)
    assert sorted(PAGES) == routes, "a page route without a row in PAGES (or a row too many)"


@pytest.fixture(scope="module")
async def walk_world() -> dict[str, Any]:
    world = await make_world()
    stranger = await make_world()
    return {"world": world, "stranger": stranger}


def concrete(path: str, world: World, **ids: str) -> str:
    values = {"workspaceId": world.workspace.id, "projectId": world.project.id, **ids}
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)


async def test_each_page_for_a_member_a_stranger_and_a_visitor(
    client: httpx.AsyncClient, walk_world: dict[str, Any]
) -> None:
    world, stranger = walk_world["world"], walk_world["stranger"]
    issue = await create_issue(client, world.project.id, world.member.headers)
    for template, row in PAGES.items():
        path = concrete(template, world, issueId=issue["id"])
        member = await client.get(path, headers=world.manager.headers)
        assert member.status_code == row.member, (path, member.status_code, member.text[:300])
        if row.member == 200:
            assert member.headers["content-type"].startswith("text/html"), path
            assert member.headers["cache-control"] == "no-store", path
        other = await client.get(path, headers=stranger.owner.headers)
        assert other.status_code == row.stranger, (path, other.status_code)
        if row.stranger == 404:
            assert "<h1" in other.text and world.project.name not in other.text, path
        anonymous = await client.get(path)
        assert anonymous.status_code == 303, path
        assert anonymous.headers["location"].startswith("/account/sign-in?next="), path
