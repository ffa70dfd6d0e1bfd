"""Every route's plan gate is declared in the one table (authz.plans.ROUTE_FEATURES), and every
gated route's access check applies it. A router added later is covered without touching this
file: its tag must be in the table, and its access dependency must carry the feature."""

import re

import pytest
from fastapi import routing
from fastapi.routing import APIRoute

from plumbline.authz.plans import PLAN_FEATURES, PLAN_ORDER, ROUTE_FEATURES, Feature, implies
from plumbline.routing import dependency_calls
from tests.factories import make_world, set_project

# Routes whose plan check is in the service, because the project is named in the body
# (uploads) or only writes are gated (project settings). Their gate is shown by tests
# through HTTP (tests/billing/test_plans.py).
GATED_IN_SERVICE = {
    "/api/v1/files/presign-upload",
    "/api/v1/files/complete-upload",
    # The cloud connectors are the user's own: open while one of their workspaces has the
    # feature, and an import checks the project's workspace (tests/cloud).
    "/api/v1/cloud/connections",
    "/api/v1/cloud/{provider}/authorize",
    "/api/v1/cloud/{provider}/callback",
    "/api/v1/cloud/{provider}",
    "/api/v1/cloud/{provider}/browse",
    "/api/v1/cloud/{provider}/open-link",
    "/api/v1/cloud/{provider}/import",
}


def _routes(app) -> list[tuple[str, APIRoute]]:  # type: ignore[no-untyped-def]
    return [
        (str(ctx.path), ctx.original_route)
        for ctx in routing.iter_route_contexts(app.routes)
        if isinstance(ctx.original_route, APIRoute) and ctx.original_route.include_in_schema
    ]


def _features(route: APIRoute) -> set[Feature]:
    return {
        c.__plumbline_feature__
        for c in dependency_calls(route.dependant)
        if getattr(c, "__plumbline_feature__", None) is not None
    }


def test_every_route_declares_its_plan_gate(app) -> None:  # type: ignore[no-untyped-def]
    routes = _routes(app)
    assert len(routes) > 100
    undeclared = [
        f"{sorted(r.methods)} {path} (tags {r.tags})"
        for path, r in routes
        if len(r.tags) != 1 or r.tags[0] not in ROUTE_FEATURES
    ]
    assert undeclared == [], "add the router's tag to authz.plans.ROUTE_FEATURES"


def test_every_gated_route_applies_its_feature(app) -> None:  # type: ignore[no-untyped-def]
    ungated = []
    for path, route in _routes(app):
        feature = ROUTE_FEATURES.get(str(route.tags[0]))
        if feature is None or path in GATED_IN_SERVICE:
            continue
        applied = _features(route)
        writes = not (route.methods or set()) <= {"GET", "HEAD"}
        if feature in applied or (writes and any(implies(f, feature) for f in applied)):
            continue
        ungated.append(f"{sorted(route.methods)} {path}: needs {feature}, applies {applied}")
    assert ungated == []


def test_open_routers_apply_no_plan_gate(app) -> None:  # type: ignore[no-untyped-def]
    gated = [
        f"{path}: {_features(route)}"
        for path, route in _routes(app)
        if ROUTE_FEATURES.get(str(route.tags[0])) is None and _features(route)
    ]
    assert gated == [], "a gated router declares its feature in ROUTE_FEATURES"


def test_the_table_names_only_features_of_a_plan() -> None:
    assert {f for f in ROUTE_FEATURES.values() if f is not None} <= set(Feature)
    assert implies(Feature.MATERIALS_WRITE, Feature.MATERIALS_READ)
    assert not implies(Feature.RECORDS, Feature.PROPOSALS)


PARAMETER = re.compile(r"\{(\w+)\}")
DUMMY_ID = "0" * 32


@pytest.mark.usefixtures("billing_local")
async def test_every_gated_project_route_answers_the_plan_it_needs(app, client) -> None:  # type: ignore[no-untyped-def]
    """Through HTTP: each route of a module above the team plan, on a team workspace, answers
    402 PLAN_REQUIRED naming the cheapest plan with the module; on enterprise it does not."""
    team = await make_world(plan="team")
    enterprise = await make_world(plan="enterprise")
    for world in (team, enterprise):  # the O&M modules are on only in operations mode
        await set_project(world.project.id, operations_mode=True)
    checked = 0
    for path, route in _routes(app):
        feature = ROUTE_FEATURES.get(str(route.tags[0]))
        if feature is None or feature in PLAN_FEATURES["team"] or "{projectId}" not in path:
            continue
        required = next(p for p in PLAN_ORDER if feature in PLAN_FEATURES[p])
        for method in sorted((route.methods or set()) - {"HEAD"}):
            for world, gated in ((team, True), (enterprise, False)):
                url = PARAMETER.sub(
                    lambda m, w=world: w.project.id if m.group(1) == "projectId" else DUMMY_ID,
                    path,
                )
                answer = await client.request(method, url, json={}, headers=world.owner.headers)
                label = f"{method} {path}"
                if gated:
                    assert answer.status_code == 402, (label, answer.text)
                    assert answer.json()["code"] == "PLAN_REQUIRED", label
                    assert answer.json()["requiredPlan"] == required, label
                else:
                    assert answer.status_code != 402, (label, answer.text)
            checked += 1
    assert checked >= 5  # the proposal routes at least
