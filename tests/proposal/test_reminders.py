"""POST /internal/proposal-reminders: senders reminded once per proposal expiring within 48 h,
past-due SENT and VIEWED proposals marked EXPIRED; replayed and concurrent calls send once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Notification, Proposal, ProposalReminder
from tests.factories import audit_entries, read_mails
from tests.proposal.flow import send, sendable

ROUTE = "/api/v1/internal/proposal-reminders"
CRON = {"x-service-cron-secret": "test-cron-secret"}
SENT_AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
RUN_AT = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


async def proposals_due(client, world):  # type: ignore[no-untyped-def]
    """Sent on SENT_AT: one expiring within 48 h of RUN_AT, one later, one past due, one
    past due but answered, one expiring soon but still a draft."""
    clock.set_now(SENT_AT)
    made = {}
    for name, valid in (
        ("soon", "2026-11-24T17:00:00Z"),
        ("later", "2026-11-26T17:00:00Z"),
        ("past", "2026-11-22T17:00:00Z"),
        ("answered", "2026-11-22T17:00:00Z"),
    ):
        made[name] = await sendable(client, world, title=name, validUntil=valid)
        await send(client, world, made[name])
    made["draft"] = await sendable(client, world, title="draft", validUntil="2026-11-24T17:00:00Z")
    async with database.sessionmaker() as db:
        row = await db.get(Proposal, made["answered"]["id"])
        assert row is not None
        row.status = "ACCEPTED"
        await db.commit()
    clock.set_now(RUN_AT)
    return made


async def reminders_to(outbox, world) -> list:  # type: ignore[no-untyped-def]
    return [
        m
        for m in read_mails(outbox, to=world.member.user.email)
        if m["Subject"].endswith("expires soon")
    ]


async def expiring_notes(world) -> list[Notification]:  # type: ignore[no-untyped-def]
    async with database.sessionmaker() as db:
        query = select(Notification).where(
            Notification.user_id == world.member.user.id, Notification.kind == "PROPOSAL_EXPIRING"
        )
        return list((await db.execute(query)).scalars())


async def statuses(made) -> dict[str, str]:  # type: ignore[no-untyped-def]
    async with database.sessionmaker() as db:
        query = select(Proposal.title, Proposal.status).where(
            Proposal.id.in_([p["id"] for p in made.values()])
        )
        return dict((await db.execute(query)).tuples().all())


async def test_reminds_once_and_marks_past_due_expired(client, world, outbox):
    made = await proposals_due(client, world)
    first = await client.post(ROUTE, headers=CRON)
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["ok"] is True
    assert body["reminded"] >= 1 and body["expired"] >= 1  # other tests' proposals share the db
    [mail] = await reminders_to(outbox, world)
    assert made["soon"]["reference"] in mail["Subject"]
    [note] = await expiring_notes(world)
    assert note.href == f"/projects/{world.project.id}/proposals/{made['soon']['id']}"
    assert await statuses(made) == {
        "soon": "SENT",
        "later": "SENT",
        "past": "EXPIRED",
        "answered": "ACCEPTED",
        "draft": "DRAFT",
    }
    [expired] = [
        e for e in await audit_entries(made["past"]["id"]) if e.action == "proposal.expired"
    ]
    assert expired.actor == "system"

    replay = await client.post(ROUTE, headers=CRON)
    assert replay.status_code == 200
    assert len(await reminders_to(outbox, world)) == 1
    assert len(await expiring_notes(world)) == 1
    assert (
        len([e for e in await audit_entries(made["past"]["id"]) if e.action == "proposal.expired"])
        == 1
    )
    async with database.sessionmaker() as db:
        query = select(ProposalReminder.proposal_id).where(
            ProposalReminder.proposal_id.in_([p["id"] for p in made.values()])
        )
        assert list((await db.execute(query)).scalars()) == [made["soon"]["id"]]


async def test_concurrent_calls_send_each_reminder_once(client, world, outbox):
    made = await proposals_due(client, world)
    responses = await asyncio.gather(*(client.post(ROUTE, headers=CRON) for _ in range(2)))
    assert [r.status_code for r in responses] == [200, 200]
    assert len(await reminders_to(outbox, world)) == 1
    assert len(await expiring_notes(world)) == 1
    assert (await statuses(made))["past"] == "EXPIRED"
    expiries = [
        e for e in await audit_entries(made["past"]["id"]) if e.action == "proposal.expired"
    ]
    assert len(expiries) == 1


async def test_the_cron_secret_is_required(client):
    assert (await client.post(ROUTE)).status_code == 401
    assert (await client.post(ROUTE, headers={"x-service-cron-secret": "wrong"})).status_code == 401
