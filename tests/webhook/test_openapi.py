"""The served OpenAPI 3.1 lists every event type a webhook receives, with its body."""

from __future__ import annotations

import httpx

from plumbline.events.catalogue import TYPES


async def test_every_event_type_is_a_webhook_of_the_openapi(client: httpx.AsyncClient) -> None:
    description = (await client.get("/api/v1/openapi.json")).json()
    assert description["openapi"] == "3.1.0"
    hooks = description["webhooks"]
    assert sorted(hooks) == sorted([*TYPES, "webhook.test"])
    schemas = description["components"]["schemas"]
    assert set(schemas["WebhookEvent"]["required"]) == {
        "id",
        "type",
        "createdAt",
        "projectId",
        "actor",
        "data",
    }
    created = hooks["issue.created"]["post"]
    body = created["requestBody"]["content"]["application/json"]["schema"]
    assert body["allOf"][0] == {"$ref": "#/components/schemas/WebhookEvent"}
    shape = body["allOf"][1]["properties"]
    assert shape["type"] == {"const": "issue.created"}
    assert shape["data"] == {"$ref": "#/components/schemas/IssueRead"}
    headers = [p["name"] for p in created["parameters"] if p["in"] == "header"]
    assert headers == ["webhook-id", "webhook-timestamp", "webhook-signature"]
    for kind in TYPES:  # each event's data: its resource's own schema, or a tombstone
        body = hooks[kind]["post"]["requestBody"]["content"]["application/json"]["schema"]
        data = body["allOf"][1]["properties"]["data"]
        if kind.endswith(".deleted"):
            assert data["required"] == ["type", "id", "deletedAt"], kind
        else:
            assert data["$ref"].rsplit("/", 1)[-1] in schemas, kind
