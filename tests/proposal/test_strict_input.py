"""Proposal bodies are read as the OpenAPI describes them: decimal strings in ASCII digits and a
point, date-times as ISO 8601 strings, bodies in UTF-8 (issue 24 item 8)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.proposal.test_endpoints import VALID, create, item, proposal_count, url


def _refused(response: Any, field: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED", body
    assert body["details"][0]["field"] == field, body


@pytest.mark.parametrize("rate", ["1e5", " 1", "\u0661\u0662", "1.", ".5", "+1", "12\n"])
async def test_a_rate_not_written_in_ascii_digits_and_a_point_is_refused(client, world, rate):
    response = await client.post(
        url(world.project),
        json={"title": "Fit-out", "validUntil": VALID, "items": [item("1", rate)]},
        headers=world.member.headers,
    )
    _refused(response, "items.0.rate")
    assert await proposal_count(world.project) == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [("taxPercent", "1e2"), ("workPricePercent", " 5"), ("discount", "\u0661\u0660")],
)
async def test_amounts_and_percentages_in_other_notations_are_refused(client, world, field, value):
    proposal = await create(client, world)
    response = await client.patch(
        url(world.project, f"/{proposal['id']}"), json={field: value}, headers=world.member.headers
    )
    _refused(response, field)
    fetched = await client.get(
        url(world.project, f"/{proposal['id']}"), headers=world.member.headers
    )
    assert fetched.json() == proposal


@pytest.mark.parametrize("valid_until", [1798736400, 1798736400.5, "1798736400"])
async def test_valid_until_as_a_number_is_refused(client, world, valid_until):
    response = await client.post(
        url(world.project),
        json={"title": "Fit-out", "validUntil": valid_until},
        headers=world.member.headers,
    )
    _refused(response, "validUntil")
    assert await proposal_count(world.project) == 0


async def test_plain_decimals_and_iso_date_times_are_still_accepted(client, world):
    body = await create(
        client,
        world,
        validUntil="2026-12-31T18:00:00+01:00",
        items=[item("2", "12.5"), item(3, 1.25)],
        taxPercent="7.25",
        discount=1,
    )
    assert body["validUntil"] == "2026-12-31T17:00:00.000Z"
    assert body["subtotal"] == "28.75"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
async def test_a_body_that_is_not_utf8_is_refused(client, world, encoding):
    payload = json.dumps({"title": "Fit-out", "validUntil": VALID})
    response = await client.post(
        url(world.project),
        content=payload.encode(encoding),
        headers={**world.member.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "INVALID_JSON"
    assert "UTF-8" in response.json()["error"]
    assert await proposal_count(world.project) == 0


async def test_a_utf8_body_with_a_byte_order_mark_is_read(client, world):
    payload = json.dumps({"title": "Fit-out", "validUntil": VALID})
    response = await client.post(
        url(world.project),
        content=payload.encode("utf-8-sig"),
        headers={**world.member.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 200, response.text
