"""The maintenance and inspection digests through HTTP: the 7-day window's edge in UTC, the
"Meter/calendar" label, assignees and managers, paused schedules, lost access, once a day."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import update

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Membership
from tests.digest.test_work_order_aging import section
from tests.factories import (
    World,
    create_asset,
    create_schedule,
    mail_text,
    om_url,
    om_world,
    read_mails,
)

CRON = {"x-service-cron-secret": "test-cron-secret"}
NOW = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)
EDGE = "2026-11-30T00:00:00Z"  # today 00:00 UTC + 7 days: in
PAST_EDGE = "2026-11-30T00:00:01Z"  # out


async def call(client: httpx.AsyncClient, route: str) -> dict[str, Any]:
    clock.set_now(NOW)
    response = await client.post(f"/api/v1/internal/{route}", headers=CRON)
    assert response.status_code == 200, response.text
    counts: dict[str, Any] = response.json()
    return counts


async def maintenance_world(client: httpx.AsyncClient) -> tuple[World, dict[str, Any]]:
    world = await om_world()
    clock.set_now(datetime(2026, 11, 1, tzinfo=UTC))
    asset = await create_asset(
        client, world, name="Chiller 1", meters=[{"type": "RUN_HOURS", "unit": "h"}]
    )
    return world, asset


async def test_maintenance_window_labels_and_recipients(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world, asset = await maintenance_world(client)
    aid = asset["id"]
    await create_schedule(client, world, aid, title="At the edge", nextDueAt=EDGE)
    await create_schedule(client, world, aid, title="Just past", nextDueAt=PAST_EDGE)
    await create_schedule(
        client,
        world,
        aid,
        title="Overdue belts",
        nextDueAt="2026-11-20T09:00:00Z",
        assigneeId=world.member.user.id,
    )
    paused = await create_schedule(client, world, aid, title="Paused", nextDueAt=EDGE)
    response = await client.patch(
        om_url(world.project, f"/maintenance/{paused['id']}"),
        json={"isActive": False},
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    await create_schedule(
        client,
        world,
        aid,
        title="Compressor service",
        nextDueAt="2027-06-01T00:00:00Z",
        meterType="RUN_HOURS",
        meterThreshold=500,
    )
    reading = await client.post(
        om_url(world.project, f"/assets/{aid}/meter-readings"),
        json={"meterType": "RUN_HOURS", "value": 620},
        headers=world.manager.headers,
    )
    assert reading.status_code == 200, reading.text

    counts = await call(client, "om-maintenance-reminders")
    assert counts["ok"] is True and counts["workspacesNotified"] >= 1

    [mail] = read_mails(outbox, to=world.manager.user.email)
    text = mail_text(mail)
    due_soon = section(text, "Due within 7 days:")
    overdue = section(text, "Overdue:")
    assert any("At the edge" in line for line in due_soon)
    assert any("Overdue belts" in line for line in overdue)
    [meter] = [line for line in overdue + due_soon if "Compressor service" in line]
    assert "(Meter/calendar)" in meter
    for absent in ("Just past", "Paused"):
        assert absent not in text
    assert "Meter/calendar" not in "".join(line for line in overdue if "Overdue belts" in line)

    # The member gets only what is assigned to them.
    [theirs] = read_mails(outbox, to=world.member.user.email)
    assert "Overdue belts" in mail_text(theirs) and "At the edge" not in mail_text(theirs)

    again = await call(client, "om-maintenance-reminders")
    assert again["workspacesSkipped"] >= 1
    assert len(read_mails(outbox, to=world.manager.user.email)) == 1


async def test_a_member_who_lost_access_gets_nothing(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world, asset = await maintenance_world(client)
    await create_schedule(
        client,
        world,
        asset["id"],
        title="Pump check",
        nextDueAt="2026-11-24T00:00:00Z",
        assigneeId=world.member.user.id,
    )
    async with database.sessionmaker() as db:  # restricted to projects they are not named on
        await db.execute(
            update(Membership)
            .where(
                Membership.workspace_id == world.workspace.id,
                Membership.user_id == world.member.user.id,
            )
            .values(restricted=True)
        )
        await db.commit()
    await call(client, "om-maintenance-reminders")
    assert read_mails(outbox, to=world.member.user.email) == []
    assert len(read_mails(outbox, to=world.manager.user.email)) == 1


async def test_inspections_due_within_the_window_go_to_managers(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world = await om_world()
    clock.set_now(datetime(2026, 11, 1, tzinfo=UTC))
    for name, due in (("Fire walk", EDGE), ("Roof walk", PAST_EDGE)):
        response = await client.post(
            om_url(world.project, "/inspection-templates"),
            json={
                "name": name,
                "frequency": "MONTHLY",
                "nextDueAt": due,
                "items": [{"label": "Exits clear", "type": "PASS_FAIL"}],
            },
            headers=world.manager.headers,
        )
        assert response.status_code == 200, response.text
    await call(client, "om-inspection-reminders")
    [mail] = read_mails(outbox, to=world.manager.user.email)
    assert any("Fire walk" in line for line in section(mail_text(mail), "Due within 7 days:"))
    assert "Roof walk" not in mail_text(mail)
    assert read_mails(outbox, to=world.member.user.email) == []
