"""Idempotency-Key through HTTP: the replay, the 422, the malformed key, what is kept."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from plumbline.kit import clock
from tests.factories import World, create_api_key, key_headers
from tests.idempotency.helpers import REPLAYED, create_issue, keyed, new_key, stored
from tests.issue.helpers import count_issues, issues_url

CRON = {"x-service-cron-secret": "test-cron-secret"}


async def test_the_same_key_and_body_replay_the_first_answer(
    client: httpx.AsyncClient, world: World
) -> None:
    key = new_key()
    first = await create_issue(client, world.project.id, world.member.headers, key)
    assert first.status_code == 200, first.text
    assert REPLAYED not in first.headers
    again = await create_issue(client, world.project.id, world.member.headers, key)
    assert again.status_code == 200
    assert again.headers[REPLAYED] == "true"
    assert again.content == first.content
    assert again.headers["content-type"] == first.headers["content-type"]
    assert again.headers["x-request-id"] != first.headers["x-request-id"]  # the exchange's own
    assert await count_issues(world.project.id) == 1


async def test_another_body_or_route_with_the_key_is_422_and_writes_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    key = new_key()
    assert (await create_issue(client, world.project.id, world.member.headers, key)).is_success
    other = await create_issue(client, world.project.id, world.member.headers, key, title="Other")
    assert other.status_code == 422, other.text
    assert other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert set(other.json()) == {"error", "code"}
    punch = await client.post(
        f"/api/v1/projects/{world.project.id}/punch",
        json={"title": "Leak at level 3"},
        headers=keyed(world.member.headers, key),
    )
    assert punch.status_code == 422
    assert await count_issues(world.project.id) == 1
    listed = await client.get(
        f"/api/v1/projects/{world.project.id}/punch", headers=world.member.headers
    )
    assert listed.json() == []


async def test_keys_belong_to_their_caller(client: httpx.AsyncClient, world: World) -> None:
    """Another user, or an API key, sending the same key makes a request of its own; a user's
    key holds across their sessions."""
    key = new_key()
    raw, _ = await create_api_key(world.project, ["issues:write"])
    for headers in (world.member.headers, world.manager.headers, key_headers(raw)):
        response = await create_issue(client, world.project.id, headers, key)
        assert response.status_code == 200 and REPLAYED not in response.headers
    assert await count_issues(world.project.id) == 3
    assert len(await stored(key)) == 3
    by_key = await create_issue(client, world.project.id, key_headers(raw), key)
    assert by_key.headers[REPLAYED] == "true"


@pytest.mark.parametrize(
    "value",
    [
        "k" * 256,
        b"caf\xc3\xa9",  # not ASCII
        b"tab\there",  # a control character
    ],
)
async def test_a_malformed_key_is_400_and_writes_nothing(
    client: httpx.AsyncClient, world: World, value: str | bytes
) -> None:
    response = await client.post(
        issues_url(world.project.id),
        json={"title": "Leak at level 3"},
        headers={**world.member.headers, "Idempotency-Key": value},  # type: ignore[dict-item]
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED"
    assert body["details"][0]["field"] == "Idempotency-Key"
    assert await count_issues(world.project.id) == 0


async def test_two_keys_in_one_request_are_400(client: httpx.AsyncClient, world: World) -> None:
    headers = [*world.member.headers.items(), ("Idempotency-Key", "a"), ("Idempotency-Key", "b")]
    response = await client.post(
        issues_url(world.project.id), json={"title": "Leak at level 3"}, headers=headers
    )
    assert response.status_code == 400
    assert await count_issues(world.project.id) == 0


async def test_a_key_of_255_printable_characters_is_taken(
    client: httpx.AsyncClient, world: World
) -> None:
    key = (new_key() + " ~!" * 100)[:255]
    first = await create_issue(client, world.project.id, world.member.headers, key)
    assert first.status_code == 200, first.text
    again = await create_issue(client, world.project.id, world.member.headers, key)
    assert again.headers[REPLAYED] == "true"
    assert [row.key for row in await stored(key)] == [key]


async def test_a_4xx_is_not_kept_so_the_key_can_carry_a_corrected_body(
    client: httpx.AsyncClient, world: World
) -> None:
    key = new_key()
    refused = await create_issue(client, world.project.id, world.member.headers, key, title="")
    assert refused.status_code == 400
    assert await stored(key) == []
    fixed = await create_issue(client, world.project.id, world.member.headers, key)
    assert fixed.status_code == 200 and REPLAYED not in fixed.headers
    assert await count_issues(world.project.id) == 1


async def test_other_methods_ignore_the_header(client: httpx.AsyncClient, world: World) -> None:
    issue = (await create_issue(client, world.project.id, world.member.headers, new_key())).json()
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    for title in ("One", "Two"):
        response = await client.patch(
            url, json={"title": title}, headers=keyed(world.member.headers, "same")
        )
        assert response.status_code == 200 and response.json()["title"] == title
    assert await stored("same") == []


async def test_a_key_is_kept_24_hours_then_purged_by_maintenance(
    client: httpx.AsyncClient, world: World
) -> None:
    key, later = new_key(), new_key()
    assert (await create_issue(client, world.project.id, world.member.headers, key)).is_success
    [row] = await stored(key)
    assert row.expires_at == row.created_at + timedelta(hours=24)

    clock.set_now(row.created_at + timedelta(hours=23))
    assert (await create_issue(client, world.project.id, world.member.headers, later)).is_success
    replay = await create_issue(client, world.project.id, world.member.headers, key)
    assert replay.headers[REPLAYED] == "true"

    clock.set_now(row.created_at + timedelta(hours=24))
    maintenance = await client.post("/api/v1/internal/maintenance", headers=CRON)
    assert maintenance.status_code == 200
    assert "idempotency.purge_expired" in maintenance.json()["queued"]
    assert await stored(key) == []
    assert len(await stored(later)) == 1  # 23 hours old: kept

    # Past its 24 hours the key starts afresh, even with another body.
    new = await create_issue(client, world.project.id, world.member.headers, key, title="New")
    assert new.status_code == 200 and REPLAYED not in new.headers
    assert await count_issues(world.project.id) == 3
