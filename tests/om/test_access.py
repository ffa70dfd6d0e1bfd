"""Every O&M route, walked from the app: the ``om:read``/``om:write`` scope, the ``om`` module
(off until the project is in operations mode), the enterprise plan when billing is on, another
workspace (404), and the role split (MANAGER+ sets up, MEMBER works). A route added later is
covered without touching this file."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from fastapi import routing
from fastapi.routing import APIRoute

from plumbline.app import create_app
from plumbline.authz.permissions import SCOPES
from plumbline.config import settings
from tests.factories import (
    create_api_key,
    create_asset,
    create_schedule,
    external,
    key_headers,
    make_world,
    om_url,
    om_world,
    set_project,
    set_workspace,
)

# The occupant links have their own module switch (occupantPortal) and tests (tests/occupant).
OM = re.compile(r"^/api/v1/projects/\{projectId\}/om/(?!occupant-links)")
PARAMETER = re.compile(r"\{(\w+)\}")
MIN_ROUTES = 11


def _routes() -> list[tuple[str, str]]:
    found = {
        (method, str(ctx.path))
        for ctx in routing.iter_route_contexts(create_app().routes)
        if isinstance(ctx.original_route, APIRoute) and OM.match(str(ctx.path))
        for method in (ctx.original_route.methods or set()) - {"HEAD"}
    }
    return sorted(found, key=lambda route: (route[1], route[0]))


ROUTES = _routes()
IDS = [f"{method} {path.split('/om/')[1]}" for method, path in ROUTES]


async def _ids(client: httpx.AsyncClient, world: Any) -> dict[str, str]:
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"])
    return {"assetId": asset["id"], "scheduleId": schedule["id"]}


def fill(path: str, project_id: str, ids: dict[str, str]) -> str:
    values = {"projectId": project_id} | ids
    return PARAMETER.sub(lambda m: values.get(m.group(1), "0" * 32), path)


def body_of(method: str) -> dict[str, Any] | None:
    return None if method == "GET" else {}


def test_the_walk_finds_the_routes() -> None:
    assert len(ROUTES) >= MIN_ROUTES, ROUTES


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=IDS)
async def test_each_route_checks_scope_module_plan_and_workspace(
    client: httpx.AsyncClient, method: str, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = await om_world()
    ids = await _ids(client, world)
    url = fill(path, world.project.id, ids)
    scope = "om:read" if method == "GET" else "om:write"

    raw, _ = await create_api_key(world.project, [s for s in SCOPES if s != scope])
    refused = await client.request(method, url, json=body_of(method), headers=key_headers(raw))
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == f"API key missing scope: {scope}"
    granted, _ = await create_api_key(world.project, [scope])
    through = await client.request(method, url, json=body_of(method), headers=key_headers(granted))
    assert through.status_code < 500 and through.status_code != 403, through.text

    other = await make_world()
    hidden = await client.request(method, url, json=body_of(method), headers=other.owner.headers)
    assert hidden.status_code == 404, hidden.text

    off = await make_world()  # not in operations mode: the om module is off
    response = await client.request(
        method, fill(path, off.project.id, ids), json=body_of(method), headers=off.owner.headers
    )
    assert response.status_code == 403, response.text
    assert response.json() == {
        "error": "Operations and maintenance is disabled for this project",
        "code": "MODULE_DISABLED",
    }
    # Switched off explicitly in an operations-mode project too.
    await set_project(world.project.id, modules={"om": False})
    response = await client.request(method, url, json=body_of(method), headers=world.owner.headers)
    assert response.json()["code"] == "MODULE_DISABLED"
    await set_project(world.project.id, modules={})

    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="pro", subscription_status="active")
    response = await client.request(method, url, json=body_of(method), headers=world.owner.headers)
    assert response.status_code == 402, response.text
    assert response.json()["code"] == "PLAN_REQUIRED"
    assert response.json()["requiredPlan"] == "enterprise"
    await set_workspace(world.workspace.id, plan="enterprise")
    response = await client.request(method, url, json=body_of(method), headers=world.owner.headers)
    assert response.status_code != 402, response.text


SETUP = {
    ("POST", "/assets"),
    ("POST", "/assets/bulk"),
    ("PATCH", "/assets/{assetId}"),
    ("DELETE", "/assets/{assetId}"),
    ("POST", "/maintenance"),
    ("PATCH", "/maintenance/{scheduleId}"),
    ("POST", "/inspection-templates"),
    ("PATCH", "/inspection-templates/{templateId}"),
    ("DELETE", "/inspection-templates/{templateId}"),
    ("POST", "/stock-locations"),
    ("POST", "/stock/receipts"),
    ("POST", "/stock/adjustments"),
    ("POST", "/purchase-orders"),
    ("PATCH", "/purchase-orders/{orderId}"),
    ("POST", "/purchase-orders/{orderId}/approve"),
    ("POST", "/purchase-orders/{orderId}/order"),
    ("POST", "/purchase-orders/{orderId}/email"),
    ("POST", "/purchase-orders/{orderId}/receive"),
    ("POST", "/purchase-orders/{orderId}/cancel"),
}


# A contractor completes only what is assigned to them (the walk's schedule is not), does not
# generate the project's work orders, and does not read the project's money (om/auth.py).
EXTERNAL_REFUSED = {
    ("POST", "/maintenance/generate-work-orders"),
    ("POST", "/maintenance/{scheduleId}/complete"),
    ("GET", "/stock/moves"),
    ("GET", "/stock/moves/export.csv"),
    ("GET", "/costs"),
    ("GET", "/costs/export.csv"),
    ("GET", "/purchase-orders"),
    ("GET", "/purchase-orders/{orderId}"),
    ("GET", "/purchase-orders/{orderId}/pdf"),
    ("GET", "/assets/{assetId}/reliability"),
    ("GET", "/reliability"),
    ("GET", "/reliability/export.csv"),
}


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=IDS)
async def test_members_work_managers_set_up_clients_see_nothing(
    client: httpx.AsyncClient, method: str, path: str
) -> None:
    world = await om_world()
    ids = await _ids(client, world)
    url = fill(path, world.project.id, ids)
    tail = path.split("/om", 1)[1]
    member = await client.request(method, url, json=body_of(method), headers=world.member.headers)
    if (method, tail) in SETUP:
        assert member.status_code == 403, member.text
        assert member.json()["code"] == "FORBIDDEN"
    else:
        assert member.status_code != 403, member.text
    contractor = await external(world, "CONTRACTOR")
    answer = await client.request(method, url, json=body_of(method), headers=contractor.headers)
    refused_to_them = (method, tail) in SETUP | EXTERNAL_REFUSED
    assert (answer.status_code == 403) == refused_to_them, answer.text
    viewer = await external(world, "CLIENT")
    refused = await client.request(method, url, json=body_of(method), headers=viewer.headers)
    assert refused.status_code == 403, refused.text


async def test_a_contractor_completes_the_schedule_assigned_to_them(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    contractor = await external(world, "CONTRACTOR")
    asset = await create_asset(client, world)
    schedule = await create_schedule(client, world, asset["id"], assigneeId=contractor.id)
    response = await client.post(
        om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
        json={"notes": "Done"},
        headers=contractor.headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["completedBy"] == contractor.id
