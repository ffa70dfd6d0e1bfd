"""The OpenAPI walk: every single-resource read (a GET under /api/v1 whose 200 is one JSON
object) declares its ETag, If-None-Match and 304; each write of its path If-Match and 412."""

from __future__ import annotations

from typing import Any

import httpx

from tests.factories import om_world

WRITES = ("post", "put", "patch", "delete")


def _is_object(schema: dict[str, Any], components: dict[str, Any]) -> bool:
    if "$ref" in schema:
        return _is_object(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    return schema.get("type") == "object" or "properties" in schema


def _headers(operation: dict[str, Any]) -> set[str]:
    return {p["name"] for p in operation.get("parameters", ()) if p["in"] == "header"}


async def test_every_single_resource_read_declares_its_etag(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/api/v1/openapi.json")).json()
    components = spec["components"]["schemas"]
    reads, missing = [], []
    for path, item in spec["paths"].items():
        read = item.get("get")
        if read is None or not path.startswith("/api/v1/"):
            continue
        schema = read["responses"].get("200", {}).get("content", {}).get("application/json")
        if schema is None or not _is_object(schema.get("schema", {}), components):
            assert "If-None-Match" not in _headers(read), path
            continue
        reads.append(path)
        if "ETag" not in read["responses"]["200"].get("headers", {}):
            missing.append(f"GET {path}: no ETag on its 200")
        if "ETag" not in read["responses"].get("304", {}).get("headers", {}):
            missing.append(f"GET {path}: no 304 with its ETag")
        if "If-None-Match" not in _headers(read):
            missing.append(f"GET {path}: no If-None-Match")
        for method in WRITES:
            if method in item and ("If-Match" not in _headers(item[method])):
                missing.append(f"{method.upper()} {path}: no If-Match")
            if method in item and "412" not in item[method]["responses"]:
                missing.append(f"{method.upper()} {path}: no 412")
    assert missing == []
    project = "/api/v1/projects/{projectId}"
    assert {
        f"{project}/issues/{{issueId}}",
        f"{project}/rfi/{{rfiId}}",
        f"{project}/punch/{{punchId}}",
        f"{project}/field-reports/{{reportId}}",
        f"{project}/proposals/{{proposalId}}",
        f"{project}/om/assets/{{assetId}}",
        f"{project}/schedule",
        project,
        "/api/v1/workspaces/{workspaceId}",
    } <= set(reads)
    # And only there: nothing else offers If-Match or 304 for a JSON object.
    for path, item in spec["paths"].items():
        for method in WRITES:
            if method in item and "If-Match" in _headers(item[method]):
                assert path in reads, (method, path)


async def test_the_tags_and_412_are_described(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/api/v1/openapi.json")).json()["paths"]
    issue = paths["/api/v1/projects/{projectId}/issues/{issueId}"]
    (if_match,) = [p for p in issue["patch"]["parameters"] if p["name"] == "If-Match"]
    assert if_match["in"] == "header" and if_match["required"] is False
    assert if_match["schema"]["type"] == "string" and if_match["schema"]["pattern"]
    assert issue["patch"]["responses"]["412"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorBody"
    }
    assert "ETag" in issue["patch"]["responses"]["200"]["headers"]
    schedule = paths["/api/v1/projects/{projectId}/schedule"]["put"]
    assert "412" in schedule["responses"] and "headers" not in schedule["responses"]["200"]


async def test_the_reads_a_caller_can_name_answer_their_tags(client: httpx.AsyncClient) -> None:
    """The walk over HTTP: every single-resource read whose path names only the project or the
    workspace answers an ETag and a 304 for it."""
    world = await om_world()
    spec = (await client.get("/api/v1/openapi.json")).json()
    ids = {"projectId": world.project.id, "workspaceId": world.workspace.id}
    headers = {**world.owner.headers, "x-service-cron-secret": "test-cron-secret"}  # conftest's
    sso = {  # the workspace's SSO configuration, read by GET /workspaces/{w}/sso
        "issuer": "https://idp.example/realms/etag",
        "clientId": "plumbline",
        "clientSecret": "etag-client-secret",
        "domains": [f"etag-{world.workspace.id[-8:]}.example"],
    }
    configured = await client.put(
        f"/api/v1/workspaces/{world.workspace.id}/sso", json=sso, headers=world.owner.headers
    )
    assert configured.status_code == 200, configured.text
    called = []
    for path, item in spec["paths"].items():
        read = item.get("get")
        if read is None or "If-None-Match" not in _headers(read):
            continue
        if any(part.startswith("{") and part[1:-1] not in ids for part in path.split("/")):
            continue
        url = path.format(**ids)
        answer = await client.get(url, headers=headers)
        assert answer.status_code == 200 and answer.headers.get("etag"), (path, answer.text)
        held = {**headers, "If-None-Match": answer.headers["etag"]}
        again = await client.get(url, headers=held)
        assert again.status_code == 304 and again.content == b"", path
        called.append(path)
    assert len(called) >= 8, called  # /me, the workspace, project, schedule, dashboards...
