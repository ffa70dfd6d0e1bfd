"""Every record route (issues, RFIs, punch, field reports, proposals): its API-key scope and
its module switch (§3, §4).

The routes are read from the app, so a route added later is covered without touching this file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import routing
from fastapi.routing import APIRoute
from sqlalchemy import func, select

from plumbline.app import create_app
from plumbline.authz.permissions import SCOPES
from plumbline.db import database
from plumbline.models import (
    Attachment,
    AuditLog,
    FieldReport,
    Issue,
    IssueComment,
    Notification,
    Proposal,
    PunchItem,
    Rfi,
    RfiMessage,
    Upload,
)
from tests.conftest import ORIGIN
from tests.factories import (
    World,
    create_api_key,
    create_project,
    key_headers,
    make_world,
    set_project,
)

PREFIX = "/api/v1/projects/{projectId}/"
GROUP = re.compile(
    r"^/api/v1/projects/\{projectId\}/(issues|rfi|punch|field-reports|proposals)(?![\w-])"
)
PARAMETER = re.compile(r"\{(\w+)\}")
# Group → (module switch, the label of its refusal, a body that creates one record).
GROUPS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "issues": ("issues", "Issues", {"title": "Leak at level 3"}),
    "rfi": ("rfi", "RFIs", {"title": "Beam depth at grid C?"}),
    "punch": ("punch", "Punch", {"title": "Touch up paint"}),
    "field-reports": ("fieldReports", "Field reports", {"title": "Daily report"}),
    "proposals": (
        "proposals",
        "Proposals",
        {"title": "Fit-out", "validUntil": "2030-01-01T00:00:00Z"},
    ),
}
MIN_ROUTES = 30
DUMMY_ID = "0" * 32
RECORDS = (Issue, Rfi, PunchItem, FieldReport, Proposal)
TRACKED = (*RECORDS, IssueComment, RfiMessage, Upload, Attachment, AuditLog, Notification)


def _record_routes() -> list[tuple[str, str]]:
    """(method, full path) of every API route of the record groups; FastAPI keeps included
    routers unflattened, so the walk goes through ``iter_route_contexts``."""
    found = {
        (method, str(ctx.path))
        for ctx in routing.iter_route_contexts(create_app().routes)
        if isinstance(ctx.original_route, APIRoute) and GROUP.match(str(ctx.path))
        for method in (ctx.original_route.methods or set()) - {"HEAD"}
    }
    return sorted(found, key=lambda route: (route[1], route[0]))


ROUTES = _record_routes()


def group_of(path: str) -> str:
    found = GROUP.match(path)
    assert found is not None
    return found.group(1)


def scope_of(method: str, path: str) -> str:
    return f"{group_of(path)}:{'read' if method == 'GET' else 'write'}"


def fill(path: str, project_id: str, record_id: str) -> str:
    """The path with the project, ``record_id`` in its first record parameter, dummies after."""
    names = [name for name in PARAMETER.findall(path) if name != "projectId"]
    values = {"projectId": project_id} | {
        name: record_id if i == 0 else DUMMY_ID for i, name in enumerate(names)
    }
    return PARAMETER.sub(lambda m: values[m.group(1)], path)


def body_of(method: str) -> dict[str, Any] | None:
    return None if method == "GET" else {}


async def footprint(project_id: str) -> tuple[Any, ...]:
    """Row counts of every table a record route writes, with the records' last update and
    deletions: equal before and after a request that wrote nothing."""
    columns = [
        select(func.count()).select_from(model).where(model.project_id == project_id)
        for model in TRACKED
    ] + [
        select(func.max(model.updated_at), func.count(model.deleted_at)).where(
            model.project_id == project_id
        )
        for model in RECORDS
    ]
    async with database.sessionmaker() as db:
        return tuple([tuple((await db.execute(query)).one()) for query in columns])


@dataclass
class Setup:
    world: World
    records: dict[str, str]  # group → a live record of world.project
    without: dict[str, str]  # scope → a key holding every other scope
    full: str  # a key holding every scope
    disabled: dict[str, tuple[str, dict[str, str]]]  # group → (project, its records) module off


async def _seed(client: httpx.AsyncClient, project_id: str, world: World) -> dict[str, str]:
    records = {}
    for group, (_, _, body) in GROUPS.items():
        response = await client.post(
            f"/api/v1/projects/{project_id}/{group}", json=body, headers=world.manager.headers
        )
        assert response.status_code == 200, response.text
        records[group] = response.json()["id"]
    return records


@pytest.fixture(scope="module")
async def setup(app: Any) -> Setup:
    """One world for every case: records, one key per missing scope, one project per group
    with only that group's module off."""
    world = await make_world()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url=ORIGIN, headers={"Origin": ORIGIN}
    ) as client:
        records = await _seed(client, world.project.id, world)
        disabled = {}
        for group, (module, _, _) in GROUPS.items():
            project = await create_project(world.workspace, name=f"No {group}")
            disabled[group] = (project.id, await _seed(client, project.id, world))
            await set_project(project.id, modules={module: False})
    without = {
        scope: (await create_api_key(world.project, [s for s in SCOPES if s != scope]))[0]
        for scope in {scope_of(method, path) for method, path in ROUTES}
    }
    full, _ = await create_api_key(world.project, list(SCOPES))
    return Setup(world, records, without, full, disabled)


def _case_id(route: tuple[str, str]) -> str:
    return f"{route[0]} {route[1].removeprefix(PREFIX)}"


def test_the_walk_finds_every_group() -> None:
    """The parametrized cases below cannot pass vacuously."""
    assert len(ROUTES) >= MIN_ROUTES, ROUTES
    assert {group_of(path) for _, path in ROUTES} == set(GROUPS)


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[_case_id(r) for r in ROUTES])
async def test_key_needs_the_group_scope(
    client: httpx.AsyncClient, setup: Setup, method: str, path: str
) -> None:
    """Every other scope is refused with API_KEY_SCOPE; the route's own scope lets it through."""
    scope, project_id = scope_of(method, path), setup.world.project.id
    before = await footprint(project_id)
    refused = await client.request(
        method,
        fill(path, project_id, setup.records[group_of(path)]),
        json=body_of(method),
        headers=key_headers(setup.without[scope]),
    )
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == "API_KEY_SCOPE"
    assert refused.json()["error"] == f"API key missing scope: {scope}"
    assert await footprint(project_id) == before

    granted = await client.request(
        method,
        fill(path, project_id, DUMMY_ID),
        json=body_of(method),
        headers=key_headers(setup.full),
    )
    assert granted.status_code < 500, granted.text
    if granted.status_code == 403:
        assert granted.json()["code"] != "API_KEY_SCOPE", granted.text


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[_case_id(r) for r in ROUTES])
async def test_disabled_module_refuses_a_manager(
    client: httpx.AsyncClient, setup: Setup, method: str, path: str
) -> None:
    """With the group's module off a manager gets 403 MODULE_DISABLED and nothing is written."""
    group = group_of(path)
    project_id, records = setup.disabled[group]
    before = await footprint(project_id)
    response = await client.request(
        method,
        fill(path, project_id, records[group]),
        json=body_of(method),
        headers=setup.world.manager.headers,
    )
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "MODULE_DISABLED"
    assert response.json()["error"] == f"{GROUPS[group][1]} is disabled for this project"
    assert await footprint(project_id) == before
