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
    assert shape["data"]["anyOf"][0] == {"$ref": "#/components/schemas/IssueRead"}
    headers = [p["name"] for p in created["parameters"] if p["in"] == "header"]
    assert headers == ["webhook-id", "webhook-timestamp", "webhook-signature"]
    for hook in hooks.values():  # every data schema named is one the description holds
        data = hook["post"]["requestBody"]["content"]["application/json"]["schema"]["allOf"][1]
        ref = data["properties"]["data"]["anyOf"][0].get("$ref")
        assert ref is None or ref.rsplit("/", 1)[1] in schemas
