"""A proposal's validity when the create leaves ``validUntil`` out (issue 40 item 10): 30 days,
to the end of that day on the project's clock; and the OpenAPI describes the create's body as
the server takes it."""

from datetime import UTC, datetime
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from plumbline.kit import clock
from tests.factories import set_project
from tests.proposal.test_endpoints import proposal_count, url
from tests.proposal.test_templates import make_template

NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize("body", [{}, {"validUntil": None}], ids=["left out", "null"])
async def test_a_draft_without_valid_until_is_valid_for_30_days(client, world, body):
    clock.set_now(NOW)
    response = await client.post(
        url(world.project), json={"title": "Fit-out"} | body, headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    assert response.json()["validUntil"] == "2026-12-23T23:59:59.000Z"  # 23 Nov + 30 days


async def test_the_days_are_the_project_s_own(client, world):
    # 20:00 UTC on 23 Nov is 09:00 on 24 Nov in Auckland (UTC+13 in summer).
    await set_project(world.project.id, timezone="Pacific/Auckland")
    clock.set_now(datetime(2026, 11, 23, 20, 0, tzinfo=UTC))
    response = await client.post(
        url(world.project), json={"title": "Fit-out"}, headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    # The end of 24 December in Auckland.
    assert response.json()["validUntil"] == "2026-12-24T10:59:59.000Z"
    # A template's validDays counts the same days.
    template = await make_template(client, world, defaults={"validDays": 10})
    response = await client.post(
        url(world.project),
        json={"title": "Fit-out", "templateId": template["id"]},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    assert response.json()["validUntil"] == "2026-12-04T10:59:59.000Z"


async def _create_body(client: Any) -> Draft202012Validator:
    """The create's body as the served OpenAPI describes it."""
    described = (await client.get("/api/v1/openapi.json")).json()
    operation = described["paths"]["/api/v1/projects/{projectId}/proposals"]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    return Draft202012Validator(schema | {"components": described["components"]})


async def test_the_openapi_describes_the_create_the_server_takes(client, world):
    clock.set_now(NOW)
    body = await _create_body(client)
    no_days = await make_template(client, world)  # a template that names no validDays
    candidates = {
        "validUntil left out": {"title": "Fit-out"},
        "validUntil null": {"title": "Fit-out", "validUntil": None},
        "a template without validDays": {"title": "Fit-out", "templateId": no_days["id"]},
        "validUntil given": {"title": "Fit-out", "validUntil": "2027-01-15T12:00:00Z"},
        "no title": {"validUntil": "2027-01-15T12:00:00Z"},
    }
    described, taken = {}, {}
    for name, candidate in candidates.items():
        described[name] = body.is_valid(candidate)
        before = await proposal_count(world.project)
        response = await client.post(
            url(world.project), json=candidate, headers=world.member.headers
        )
        assert response.status_code in (200, 400), response.text
        taken[name] = response.status_code == 200
        assert await proposal_count(world.project) == before + taken[name]
    assert taken == described
    assert described == dict.fromkeys(candidates, True) | {"no title": False}
