"""Input rules every route shares: JSON bodies only (415), broken JSON named by line and column,
bounded integers, strict numbers and booleans, no nesting deep enough to exhaust a parser."""

from __future__ import annotations

import re
import types
import typing
from typing import Any

import httpx
from fastapi import FastAPI, routing
from fastapi.routing import APIRoute
from pydantic import BaseModel, Strict

from tests.factories import World, set_project

BODY_METHODS = {"POST", "PUT", "PATCH"}


def _json_body_routes(app: FastAPI) -> list[tuple[str, str, APIRoute]]:
    found = []
    for context in routing.iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and route.body_field is not None:
            for method in (route.methods or set()) & BODY_METHODS:
                found.append((method, str(context.path), route))
    return found


def _filled(path: str) -> str:
    return re.sub(r"{[^}]+}", "x1", path)


async def test_every_json_route_answers_400_to_a_body_deeper_than_the_parser(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    routes = _json_body_routes(app)
    assert len(routes) > 40
    deep = b"[" * 100_000 + b"]" * 100_000
    for method, path, _ in routes:
        response = await client.request(
            method, _filled(path), content=deep, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 400, (method, path, response.text)
        assert response.json()["code"] == "BAD_REQUEST"


async def test_a_body_that_is_not_json_is_415_and_broken_json_names_where_it_broke(
    client: httpx.AsyncClient, world: World
) -> None:
    url = f"/api/v1/projects/{world.project.id}/issues"
    headers = world.member.headers
    for content_type, content in (
        ("text/plain", b'{"title": "x"}'),
        ("application/x-www-form-urlencoded", b"title=x"),
        (None, b'{"title": "x"}'),
    ):
        sent = {**headers, "Content-Type": content_type} if content_type else headers
        response = await client.post(url, content=content, headers=sent)
        assert response.status_code == 415, (content_type, response.text)
        assert response.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    broken = await client.post(
        url,
        content=b'{\n  "title": x\n}',
        headers={**headers, "Content-Type": "application/json"},
    )
    assert broken.status_code == 400
    body = broken.json()
    assert body["code"] == "INVALID_JSON" and "details" not in body
    assert "line 2, column 12" in body["error"]
    sign_in = await client.post(
        "/api/auth/sign-in/email", content=b"{", headers={"Content-Type": "application/json"}
    )
    assert sign_in.status_code == 400 and sign_in.json()["code"] == "INVALID_JSON"
    assert "line 1, column 2" in sign_in.json()["message"]


async def test_numbers_and_booleans_in_bodies_are_strict(
    client: httpx.AsyncClient, world: World
) -> None:
    issues = f"/api/v1/projects/{world.project.id}/issues"
    headers = world.member.headers
    for fields, field in (
        ({"pageNumber": "2"}, "pageNumber"),
        ({"pageNumber": True}, "pageNumber"),
        ({"pin": {"x": "0.5", "y": 0.5}}, "pin.x"),
        ({"checklist": [{"label": "a", "done": 1}]}, "checklist.0.done"),
        ({"checklist": [{"label": "a", "done": "true"}]}, "checklist.0.done"),
    ):
        response = await client.post(issues, json={"title": "t", **fields}, headers=headers)
        assert response.status_code == 400, (fields, response.text)
        assert response.json()["details"][0]["field"] == field
    for size in ("10", True, 10.5, -1, 2**60):
        response = await client.post(
            "/api/v1/files/presign-upload",
            json={
                "projectId": world.project.id,
                "fileName": "a.pdf",
                "contentType": "application/pdf",
                "sizeBytes": size,
            },
            headers=headers,
        )
        assert response.status_code == 400, (size, response.text)
        assert response.json()["details"][0]["field"] == "sizeBytes"
    ok = await client.post(
        issues,
        json={
            "title": "t",
            "pageNumber": 2,
            "pin": {"x": 1, "y": 0.5},
            "checklist": [{"label": "a", "done": True}],
        },
        headers=headers,
    )
    assert ok.status_code == 200, ok.text


def _unbounded_integers(node: Any, components: dict[str, Any], seen: frozenset[str]) -> int:
    if isinstance(node, list):
        return sum(_unbounded_integers(item, components, seen) for item in node)
    if not isinstance(node, dict):
        return 0
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return (
            0 if name in seen else _unbounded_integers(components[name], components, seen | {name})
        )
    count = 0
    if node.get("type") in ("integer", "number"):
        count += "maximum" not in node or "minimum" not in node
    return count + sum(_unbounded_integers(v, components, seen) for v in node.values())


async def test_every_number_a_client_sends_has_bounds(client: httpx.AsyncClient) -> None:
    schema = (await client.get("/api/v1/openapi.json")).json()
    components = schema["components"]["schemas"]
    unbounded = []
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            inputs = [p.get("schema", {}) for p in operation.get("parameters", [])]
            inputs += [
                c.get("schema", {})
                for c in operation.get("requestBody", {}).get("content", {}).values()
            ]
            if _unbounded_integers(inputs, components, frozenset()):
                unbounded.append(f"{method.upper()} {path}")
    assert unbounded == []


def _lax_scalars(annotation: Any, strict: bool, seen: set[type]) -> list[str]:
    """The int, float and bool types in an annotation that are not marked ``Strict``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *metadata = typing.get_args(annotation)
        marked = any(isinstance(m, Strict) or getattr(m, "strict", False) for m in metadata)
        return _lax_scalars(inner, strict or marked, seen)
    if origin in (typing.Union, types.UnionType, list, set, tuple, dict):
        return [s for a in typing.get_args(annotation) for s in _lax_scalars(a, strict, seen)]
    if annotation in (int, float, bool):
        return [] if strict else [annotation.__name__]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return []
        seen.add(annotation)
        return [
            f"{annotation.__name__}.{name}: {lax}"
            for name, field in annotation.model_fields.items()
            for lax in _lax_scalars(
                field.annotation,
                any(isinstance(m, Strict) or getattr(m, "strict", False) for m in field.metadata),
                seen,
            )
        ]
    return []


def test_every_number_and_boolean_in_a_body_is_strict(app: FastAPI) -> None:
    seen: set[type] = set()
    lax = [
        found
        for _, _, route in _json_body_routes(app)
        for found in _lax_scalars(route.body_field.field_info.annotation, False, seen)  # type: ignore[union-attr]
    ]
    assert len(seen) > 30
    assert lax == []


async def test_every_route_with_a_body_documents_415(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/api/v1/openapi.json")).json()["paths"]
    with_body = [
        (path, method, operation)
        for path, item in paths.items()
        for method, operation in item.items()
        if "requestBody" in operation
    ]
    assert len(with_body) > 40
    assert [(p, m) for p, m, op in with_body if "415" not in op["responses"]] == []
    photos = "/api/v1/projects/{projectId}/punch/{punchId}/reference-photos/presign"
    assert "415" in paths[photos]["post"]["responses"]


async def test_dates_and_date_times_in_bodies_are_iso_strings_never_numbers(
    client: httpx.AsyncClient, world: World
) -> None:
    """A number (or a string of digits) is not read as seconds since 1970 (issue 24 item 8)."""
    headers = world.owner.headers
    project = f"/api/v1/projects/{world.project.id}"
    for value in (0, 1798736400, "1798736400"):
        for method, path, field in (
            ("PATCH", project, "startDate"),
            ("POST", f"{project}/api-keys", "expiresAt"),
        ):
            body = {"name": "CI", "scopes": ["issues:read"], field: value}
            response = await client.request(method, path, json=body, headers=headers)
            assert response.status_code == 400, (path, value, response.text)
            assert response.json()["details"][0]["field"] == field
    keys = await client.get(f"{project}/api-keys", headers=headers)
    assert keys.json() == []
    read = await client.get(project, headers=headers)
    assert read.json()["startDate"] is None


async def test_date_time_query_parameters_are_iso_strings_never_numbers(
    client: httpx.AsyncClient, world: World
) -> None:
    """Every query parameter the OpenAPI calls a date-time takes ISO 8601 text, not seconds
    since 1970 (issue 24 item 8); found from the description, so a new one is held too."""
    spec = (await client.get("/api/v1/openapi.json")).json()
    ids = {"projectId": world.project.id, "workspaceId": world.workspace.id}
    await set_project(world.project.id, operations_mode=True)  # the O&M lists too
    checked = []
    for path, item in spec["paths"].items():
        operation = item.get("get")
        if operation is None or not path.startswith("/api/v1/projects/{projectId}/"):
            continue
        if any("{" in part and part[1:-1] not in ids for part in path.split("/")):
            continue
        for parameter in operation.get("parameters", ()):
            schema = parameter.get("schema", {})
            kinds = [schema, *schema.get("anyOf", ())]
            if parameter["in"] != "query" or not any(k.get("format") == "date-time" for k in kinds):
                continue
            url = path.format(**ids)
            for value in ("1798736400", "0"):
                response = await client.get(
                    url, params={parameter["name"]: value}, headers=world.owner.headers
                )
                assert response.status_code == 400, (url, parameter["name"], response.text)
            good = await client.get(
                url, params={parameter["name"]: "2026-11-24T09:30:00Z"}, headers=world.owner.headers
            )
            assert good.status_code == 200, (url, parameter["name"], good.text)
            checked.append(f"{path}?{parameter['name']}")
    assert len(checked) >= 5, checked  # issues, RFIs, punch, field reports, proposals, audit
