"""The proposal portal: the client's routes behind the e-mailed link's token."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Proposal, ProposalMessage
from tests.factories import audit_entries
from tests.proposal.flow import data_url, notifications, png, sent_with_link, url

NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _now() -> None:
    clock.set_now(NOW)


async def stored(proposal_id: str) -> Proposal:
    async with database.sessionmaker() as db:
        row = await db.get(Proposal, proposal_id)
        assert row is not None
        return row


async def test_unknown_token_is_404(client):
    for method, suffix in (("GET", ""), ("POST", "/view"), ("GET", "/messages")):
        response = await client.request(method, f"/api/v1/public/proposals/{new_id()}{suffix}")
        assert response.status_code == 404
        assert response.json()["code"] == "NOT_FOUND"


async def test_only_a_hash_of_the_token_is_stored(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox)
    token = path.rsplit("/", 1)[1]
    assert len(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))) >= 32
    row = await stored(proposal["id"])
    assert row.token_hash is not None and token not in row.token_hash
    assert len(row.token_hash) == 64


async def test_past_valid_until_is_410(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox, validUntil="2026-11-24T00:00:00Z")
    clock.set_now(datetime(2026, 11, 24, 0, 0, 0, tzinfo=UTC))
    for method, suffix, body in (
        ("GET", "", None),
        ("POST", "/view", None),
        ("POST", "/accept", {"signerName": "Dana"}),
        ("POST", "/messages", {"body": "late"}),
    ):
        response = await client.request(method, f"{path}{suffix}", json=body)
        assert response.status_code == 410, (suffix, response.text)
        assert response.json()["code"] == "EXPIRED"
    assert (await stored(proposal["id"])).status == "SENT"


async def test_an_answered_proposal_stays_readable_after_valid_until(client, world, outbox):
    _, path = await sent_with_link(client, world, outbox, validUntil="2026-11-24T00:00:00Z")
    assert (await client.post(f"{path}/accept", json={"signerName": "Dana"})).status_code == 200
    clock.set_now(datetime(2026, 12, 24, tzinfo=UTC))
    response = await client.get(path)
    assert response.status_code == 200
    assert response.json()["status"] == "ACCEPTED"


async def test_the_31st_request_in_a_minute_is_429(client, world, outbox):
    _, path = await sent_with_link(client, world, outbox)
    for _ in range(30):
        assert (await client.get(path)).status_code == 200
    response = await client.post(f"{path}/view")
    assert response.status_code == 429
    assert response.json()["code"] == "RATE_LIMITED"
    assert int(response.headers["Retry-After"]) >= 1


@pytest.mark.parametrize("status", ["ACCEPTED", "DECLINED", "CHANGES_REQUESTED"])
@pytest.mark.parametrize(
    ("action", "body"),
    [
        ("accept", {"signerName": "Dana"}),
        ("decline", {"reason": "TIMING"}),
        ("request-changes", {"comment": "Cheaper please"}),
    ],
)
async def test_answers_only_from_sent_or_viewed(client, world, outbox, status, action, body):
    proposal, path = await sent_with_link(client, world, outbox)
    async with database.sessionmaker() as db:
        row = await db.get(Proposal, proposal["id"])
        assert row is not None
        row.status = status
        await db.commit()
    response = await client.post(f"{path}/{action}", json=body)
    assert response.status_code == 409
    assert response.json()["code"] == "INVALID_TRANSITION"
    assert (await stored(proposal["id"])).status == status


async def test_decline_with_a_reason(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox)
    response = await client.post(
        f"{path}/decline", json={"reason": "PRICE_TOO_HIGH", "comment": "<b>Too</b> much"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "DECLINED"
    assert body["declineReason"] == "PRICE_TOO_HIGH"
    assert body["declineComment"] == "<b>Too</b> much"
    assert body["declinedAt"] == "2026-11-23T09:00:00.000Z"
    assert len(await notifications(world.member.user.id, "PROPOSAL_DECLINED")) == 1
    [entry] = [e for e in await audit_entries(proposal["id"]) if e.action == "proposal.declined"]
    assert entry.actor == "public"
    assert entry.changes["status"] == ["SENT", "DECLINED"]


async def test_request_changes_notifies_the_sender(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox)
    response = await client.post(f"{path}/request-changes", json={"comment": "Split phase 2"})
    assert response.json()["status"] == "CHANGES_REQUESTED"
    assert response.json()["changeRequestComment"] == "Split phase 2"
    [note] = await notifications(world.member.user.id, "PROPOSAL_CHANGES_REQUESTED")
    assert note.href == f"/projects/{world.project.id}/proposals/{proposal['id']}"
    # Still open for questions while the contractor edits.
    assert (await client.post(f"{path}/messages", json={"body": "Thanks"})).status_code == 200


def bad_crc() -> bytes:
    data = bytearray(png())
    data[-5] ^= 0xFF  # the IEND chunk's CRC
    return bytes(data)


BAD = [
    ({"signerName": ""}, "signerName"),
    ({}, "signerName"),
    ({"signerName": "D" * 201}, "signerName"),
    ({"signerName": "Dana", "signature": "data:image/jpeg;base64,AAAA"}, "signature"),
    ({"signerName": "Dana", "signature": "data:image/png;base64,@@@not-base64"}, "signature"),
    ({"signerName": "Dana", "signature": data_url(b"GIF89a" + b"\x00" * 20)}, "signature"),
    ({"signerName": "Dana", "signature": data_url(png()[:-12])}, "signature"),
    ({"signerName": "Dana", "signature": data_url(bad_crc())}, "signature"),
    ({"signerName": "Dana", "signature": data_url(png(5000, 1))}, "signature"),
    ({"signerName": "Dana", "signature": data_url(png() + b"\x00" * 205_000)}, "signature"),
    ({"signerName": "Dana", "signature": "data:image/png;base64," + "A" * 300_000}, "signature"),
]


@pytest.mark.parametrize(("body", "field"), BAD)
async def test_bad_acceptance_is_refused_and_nothing_changes(client, world, outbox, body, field):
    proposal, path = await sent_with_link(client, world, outbox)
    response = await client.post(f"{path}/accept", json=body)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert field in [d["field"] for d in response.json()["details"]]
    row = await stored(proposal["id"])
    assert row.status == "SENT" and row.accepted_at is None and row.signer_name is None
    assert [e for e in await audit_entries(proposal["id"]) if e.actor == "public"] == []


@pytest.mark.parametrize(
    ("action", "body", "field"),
    [
        ("decline", {"reason": "BORED"}, "reason"),
        ("decline", {}, "reason"),
        ("request-changes", {"comment": ""}, "comment"),
        ("request-changes", {"comment": "x" * 10001}, "comment"),
        ("messages", {"body": ""}, "body"),
        ("messages", {"body": "a\u0000b"}, "body"),
    ],
)
async def test_bad_answers_are_refused(client, world, outbox, action, body, field):
    proposal, path = await sent_with_link(client, world, outbox)
    response = await client.post(f"{path}/{action}", json=body)
    assert response.status_code == 400, response.text
    assert field in [d["field"] for d in response.json()["details"]]
    assert (await stored(proposal["id"])).status == "SENT"
    async with database.sessionmaker() as db:
        query = select(ProposalMessage).where(ProposalMessage.proposal_id == proposal["id"])
        assert list((await db.execute(query)).scalars()) == []


async def test_messages_keep_html_as_text(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox)
    script = "<script>alert('x')</script>"
    response = await client.post(f"{path}/messages", json={"body": script})
    assert response.json()["body"] == script
    assert response.json()["authorName"] == "Dana Client"
    contractor = await client.get(
        url(world.project, f"/{proposal['id']}/messages"), headers=world.member.headers
    )
    assert [m["body"] for m in contractor.json()] == [script]


async def test_the_view_is_audited_once(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox)
    for _ in range(3):
        assert (await client.post(f"{path}/view")).status_code == 200
    viewed = [e for e in await audit_entries(proposal["id"]) if e.action == "proposal.viewed"]
    assert [e.actor for e in viewed] == ["public"]
    assert viewed[0].project_id == world.project.id


async def test_a_deleted_proposal_link_is_404(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox)
    async with database.sessionmaker() as db:
        row = await db.get(Proposal, proposal["id"])
        assert row is not None
        row.deleted_at = clock.now()
        await db.commit()
    assert (await client.get(path)).status_code == 404
