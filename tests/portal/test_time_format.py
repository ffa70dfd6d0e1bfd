"""Every time the public routes answer is ISO 8601 UTC with milliseconds and ``Z`` (PRODUCT §1;
issue 24 item 10): the occupant portal, its tracking page and the proposal portal."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import httpx
from orjson import loads

from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.responses import ORJSONResponse
from tests.factories import World, make_world, set_project
from tests.proposal.flow import sent_with_link

# A wall clock with microseconds, which a serializer other than ``clock.iso`` would show.
NOW = datetime(2026, 11, 24, 23, 46, 17, 877441, tzinfo=UTC)
STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
LOOKS_LIKE_A_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]")


def times_in(value: Any, where: str = "") -> list[tuple[str, str]]:
    """Every string in a JSON document that holds a date-time, with where it is."""
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in times_in(item, f"{where}.{key}")]
    if isinstance(value, list):
        return [found for i, item in enumerate(value) for found in times_in(item, f"{where}.{i}")]
    if isinstance(value, str) and LOOKS_LIKE_A_TIME.match(value):
        return [(where, value)]
    return []


def assert_times(response: httpx.Response, *expected: str) -> None:
    assert response.status_code == 200, response.text
    found = times_in(response.json())
    wrong = [(where, value) for where, value in found if not STAMP.fullmatch(value)]
    assert wrong == [], wrong
    assert {where for where, _ in found} >= set(expected), found


async def test_the_occupant_portal_answers_times_in_one_format(client: httpx.AsyncClient) -> None:
    clock.set_now(NOW)
    world: World = await make_world()
    await set_project(world.project.id, operations_mode=True)
    links = f"/api/v1/projects/{world.project.id}/om/occupant-links"
    created = await client.post(
        links,
        json={"label": "Lobby", "expiresAt": "2027-01-01T00:00:00.5+02:00"},
        headers=world.manager.headers,
    )
    assert_times(created, ".expiresAt", ".createdAt")
    assert_times(await client.get(links, headers=world.manager.headers), ".0.createdAt")
    token = created.json()["token"]
    submitted = await client.post(
        f"/api/v1/occupant/{token}/submit",
        json={
            "title": "Leaking tap",
            "description": "Drips all day.",
            "reporterName": "Riley",
            "reporterEmail": f"riley-{new_id()}@example.com",
        },
    )
    assert_times(submitted, ".photoTokenExpiresAt")
    issue = f"/api/v1/projects/{world.project.id}/issues/{submitted.json()['issueId']}"
    moved = await client.patch(issue, json={"status": "IN_PROGRESS"}, headers=world.manager.headers)
    assert moved.status_code == 200, moved.text
    tracked = await client.get(submitted.json()["trackingUrl"])
    assert_times(tracked, ".submittedAt", ".updates.0.at")


async def test_the_proposal_portal_answers_times_in_one_format(
    client: httpx.AsyncClient, world: World, outbox: Any
) -> None:
    clock.set_now(NOW)
    _, path = await sent_with_link(client, world, outbox)
    assert_times(await client.get(path), ".validUntil", ".sentAt")
    assert_times(await client.post(path + "/view"), ".viewedAt")
    assert_times(await client.post(path + "/messages", json={"body": "When?"}), ".createdAt")
    assert_times(await client.get(path + "/messages"), ".0.createdAt")
    assert_times(await client.post(path + "/accept", json={"signerName": "Dana"}), ".acceptedAt")


def test_a_datetime_left_in_a_response_is_written_as_clock_iso_writes_it() -> None:
    naive = NOW.replace(tzinfo=None)
    body = loads(ORJSONResponse({"aware": NOW, "naive": naive, "day": NOW.date()}).body)
    assert body == {
        "aware": "2026-11-24T23:46:17.877Z",
        "naive": "2026-11-24T23:46:17.877Z",
        "day": "2026-11-24",
    }
