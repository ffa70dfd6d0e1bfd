"""Who may call each inspection route: walked from the app's routes, so a route added later is
covered. Key scopes (om:read / om:write), the om module, the enterprise plan with billing on,
clients and other workspaces; MANAGER+ set up templates, members and assigned collaborators
work on runs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import routing
from fastapi.routing import APIRoute

from plumbline.app import create_app
from plumbline.authz.permissions import SCOPES
from plumbline.config import settings
from tests.factories import (
    World,
    create_api_key,
    external,
    key_headers,
    om_world,
    set_project,
    set_workspace,
)
from tests.om_inspections.helpers import (
    FIRE_WALK,
    create_run,
    create_template,
    runs_url,
)

GROUP = re.compile(r"^/api/v1/projects/\{projectId\}/om/(inspection-templates|inspection-runs)")
PARAMETER = re.compile(r"\{(\w+)\}")
ROUTES = sorted(
    {
        (method, str(ctx.path))
        for ctx in routing.iter_route_contexts(create_app().routes)
        if isinstance(ctx.original_route, APIRoute) and GROUP.match(str(ctx.path))
        for method in (ctx.original_route.methods or set()) - {"HEAD"}
    },
    key=lambda r: (r[1], r[0]),
)
SETUP = {
    ("POST", "/api/v1/projects/{projectId}/om/inspection-templates"),
    ("PATCH", "/api/v1/projects/{projectId}/om/inspection-templates/{templateId}"),
    ("DELETE", "/api/v1/projects/{projectId}/om/inspection-templates/{templateId}"),
}


@dataclass
class Setup:
    world: World
    template: str
    run: str


def fill(path: str, project_id: str, setup: Setup) -> str:
    values = {"projectId": project_id, "templateId": setup.template, "runId": setup.run}
    return PARAMETER.sub(lambda m: values[m.group(1)], path)


def body(method: str) -> dict[str, Any] | None:
    return None if method in ("GET", "DELETE") else {}


async def _setup(client: httpx.AsyncClient) -> Setup:
    world = await om_world()
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"])
    return Setup(world, template["id"], run["id"])


def test_the_walk_finds_every_route() -> None:
    assert len(ROUTES) == 14, ROUTES


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_each_route_is_guarded(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, method: str, path: str
) -> None:
    setup = await _setup(client)
    world, project = setup.world, setup.world.project.id
    url = fill(path, project, setup)
    scope = "om:read" if method == "GET" else "om:write"

    key, _ = await create_api_key(world.project, [s for s in SCOPES if s != scope])
    refused = await client.request(method, url, json=body(method), headers=key_headers(key))
    assert refused.status_code == 403, refused.text
    assert refused.json() == {"error": f"API key missing scope: {scope}", "code": "API_KEY_SCOPE"}

    other = await om_world()
    hidden = await client.request(method, url, json=body(method), headers=other.owner.headers)
    assert hidden.status_code == 404
    foreign = await client.request(
        method, fill(path, other.project.id, setup), json=body(method), headers=other.owner.headers
    )
    if "{templateId}" in path or "{runId}" in path:
        assert foreign.status_code in (400, 404), foreign.text  # never another project's record
    elif method == "GET":
        assert foreign.json() == []

    client_user = await external(world, "CLIENT", "Cara Client")
    assert (
        await client.request(method, url, json=body(method), headers=client_user.headers)
    ).status_code == 403

    member = await client.request(method, url, json=body(method), headers=world.member.headers)
    assert (member.status_code == 403) == ((method, path) in SETUP), member.text

    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="pro", subscription_status="active")
    plan = await client.request(method, url, json=body(method), headers=world.owner.headers)
    assert plan.status_code == 402
    assert plan.json()["code"] == "PLAN_REQUIRED"
    assert plan.json()["requiredPlan"] == "enterprise"
    monkeypatch.setattr(settings, "billing", "off")

    await set_project(project, operations_mode=False)
    off = await client.request(method, url, json=body(method), headers=world.owner.headers)
    assert off.status_code == 403
    assert off.json() == {
        "error": "Operations and maintenance is disabled for this project",
        "code": "MODULE_DISABLED",
    }


async def test_contractors_work_only_on_runs_assigned_to_them(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    contractor = await external(world, "CONTRACTOR", "Cole Contractor")
    template = await create_template(client, world)
    theirs = await create_run(
        client, world, template["id"], headers=world.manager.headers, assigneeId=contractor.user.id
    )
    other = await create_run(client, world, template["id"])
    base = runs_url(world.project.id)
    listed = await client.get(base, headers=contractor.headers)
    assert [r["id"] for r in listed.json()] == [theirs["id"]]  # not the member's
    assert (
        await client.get(f"{base}/{other['id']}", headers=contractor.headers)
    ).status_code == 404
    blocked = await client.patch(
        f"{base}/{other['id']}", json={"results": []}, headers=contractor.headers
    )
    assert blocked.status_code == 404
    started = await client.post(
        base, json={"templateId": template["id"]}, headers=contractor.headers
    )
    assert started.status_code == 200, started.text
    assert started.json()["assigneeId"] == contractor.user.id
    other_assignee = {"templateId": template["id"], "assigneeId": world.member.user.id}
    assert (
        await client.post(base, json=other_assignee, headers=contractor.headers)
    ).status_code == 403
    results = [
        {"itemId": "exits", "outcome": "PASS"},
        {"itemId": "ext", "outcome": "PASS"},
        {"itemId": "panel", "outcome": "DONE"},
    ]
    url = f"{base}/{theirs['id']}"
    saved = await client.patch(url, json={"results": results}, headers=contractor.headers)
    assert saved.status_code == 200, saved.text
    reassign = await client.patch(url, json={"assigneeId": None}, headers=contractor.headers)
    assert reassign.status_code == 403
    done = await client.post(f"{url}/complete", headers=contractor.headers)
    assert done.status_code == 200, done.text
    assert done.json()["signedBy"] == "Cole Contractor"
    assert (await client.get(f"{url}/report.pdf", headers=contractor.headers)).status_code == 200


async def test_a_key_with_om_scopes_works_like_a_manager(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    key, _ = await create_api_key(world.project, ["om:read", "om:write"])
    headers = key_headers(key)
    template = await client.post(
        f"/api/v1/projects/{world.project.id}/om/inspection-templates",
        json=FIRE_WALK,
        headers=headers,
    )
    assert template.status_code == 200, template.text
    assert template.json()["createdBy"] is None
    run = await client.post(
        runs_url(world.project.id), json={"templateId": template.json()["id"]}, headers=headers
    )
    assert run.status_code == 200, run.text
