"""Each kind of caller has keys of its own: a user, an API key, a public link (the proposal
and occupant portals), the cron, and on a route that takes no credential, the client's
address. Secrets shown once are kept encrypted."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from plumbline.kit import clock, crypto
from tests.factories import World, create_api_key, key_headers, make_world, set_project
from tests.idempotency.helpers import REPLAYED, create_issue, keyed, new_key, stored
from tests.issue.helpers import count_issues
from tests.proposal.flow import notifications, sent_with_link

CRON = {"x-service-cron-secret": "test-cron-secret"}


@pytest.fixture(autouse=True)
def _now() -> None:
    clock.set_now(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))


async def test_a_portal_accept_replayed_answers_the_first_answer(
    client: httpx.AsyncClient, world: World, outbox: Path
) -> None:
    _, path = await sent_with_link(client, world, outbox)
    key = new_key()
    accepted = await client.post(
        f"{path}/accept", json={"signerName": "Dana"}, headers={"Idempotency-Key": key}
    )
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["status"] == "ACCEPTED"
    again = await client.post(
        f"{path}/accept", json={"signerName": "Dana"}, headers={"Idempotency-Key": key}
    )
    assert again.status_code == 200
    assert again.headers[REPLAYED] == "true"
    assert again.content == accepted.content
    # Without the key the retry is a second accept, which the proposal refuses.
    assert (await client.post(f"{path}/accept", json={"signerName": "Dana"})).status_code == 409
    declined = await client.post(
        f"{path}/decline", json={"reason": "TIMING"}, headers={"Idempotency-Key": key}
    )
    assert declined.status_code == 422
    assert len(await notifications(world.member.user.id, "PROPOSAL_ACCEPTED")) == 1
    [row] = await stored(key)
    assert row.caller == f"link:{crypto.sha256_hex(path.rsplit('/', 1)[1])}"


async def test_an_occupant_submit_replayed_reports_once(client: httpx.AsyncClient) -> None:
    world = await make_world()
    await set_project(world.project.id, operations_mode=True)
    link = await client.post(
        f"/api/v1/projects/{world.project.id}/om/occupant-links",
        json={"label": "Lobby poster"},
        headers=keyed(world.manager.headers, link_key := new_key()),
    )
    assert link.status_code == 200, link.text
    token = link.json()["token"]
    # The link's secret is in the kept answer, which is stored encrypted.
    [kept] = await stored(link_key)
    assert token.encode() not in kept.body and b"Lobby poster" not in kept.body

    key = new_key()
    body = {
        "title": "Leaking tap",
        "description": "It drips.",
        "reporterName": "Riley Reporter",
        "reporterEmail": "riley@example.com",
    }
    answers = [
        await client.post(
            f"/api/v1/occupant/{token}/submit", json=body, headers={"Idempotency-Key": key}
        )
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[1].content == answers[0].content
    assert answers[1].headers[REPLAYED] == "true"
    assert await count_issues(world.project.id) == 1


async def test_the_caller_each_credential_names(client: httpx.AsyncClient, world: World) -> None:
    key = new_key()
    raw, api_key = await create_api_key(world.project, ["issues:write"])
    assert (await create_issue(client, world.project.id, world.member.headers, key)).is_success
    assert (await create_issue(client, world.project.id, key_headers(raw), key)).is_success
    cron = [
        await client.post("/api/v1/internal/maintenance", headers=keyed(CRON, key))
        for _ in range(2)
    ]
    assert cron[1].headers[REPLAYED] == "true" and cron[1].json() == cron[0].json()
    chat = {"messages": [{"role": "user", "content": "Do you have an API?"}]}
    answers = [
        await client.post(
            "/api/v1/public/marketing/chat", json=chat, headers={"Idempotency-Key": key}
        )
        for _ in range(2)
    ]
    assert answers[1].headers[REPLAYED] == "true" and answers[1].json() == answers[0].json()
    assert sorted(row.caller for row in await stored(key)) == sorted(
        [f"user:{world.member.id}", f"key:{api_key.id}", "cron", "ip:127.0.0.1"]
    )
