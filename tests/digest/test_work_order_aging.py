"""The work-order ageing digest through HTTP: the 7- and 30-day edges with a chosen clock, who
receives it, once per workspace and UTC day even when called twice at once, and the CLI."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import DigestRun, Notification
from tests.factories import (
    World,
    add_member,
    create_user,
    mail_text,
    make_world,
    read_mails,
    set_project,
)

CRON = {"x-service-cron-secret": "test-cron-secret"}
ROUTE = "/api/v1/internal/om-work-order-aging-reminders"
NOW = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


async def ops_world() -> World:
    world = await make_world()
    await set_project(world.project.id, operations_mode=True)
    return world


async def work_order(
    client: httpx.AsyncClient, world: World, at: datetime, title: str, **body: Any
) -> dict[str, Any]:
    clock.set_now(at)
    response = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": title, "issueKind": "WORK_ORDER"} | body,
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    issue: dict[str, Any] = response.json()
    return issue


async def digest(client: httpx.AsyncClient) -> dict[str, Any]:
    clock.set_now(NOW)
    response = await client.post(ROUTE, headers=CRON)
    assert response.status_code == 200, response.text
    counts: dict[str, Any] = response.json()
    return counts


def section(text: str, heading: str) -> list[str]:
    """The item lines under ``heading`` in a digest's text part."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    items = []
    for line in lines[start:]:
        if not line.startswith("  - "):
            break
        items.append(line)
    return items


async def runs_of(workspace_id: str) -> list[DigestRun]:
    async with database.sessionmaker() as db:
        query = select(DigestRun).where(DigestRun.workspace_id == workspace_id)
        return list((await db.execute(query)).scalars())


async def test_the_seven_and_thirty_day_edges(client: httpx.AsyncClient, outbox: Path) -> None:
    world = await ops_world()
    week, month = timedelta(days=7), timedelta(days=30)
    second = timedelta(seconds=1)
    await work_order(client, world, NOW - week, "Exactly a week")
    await work_order(client, world, NOW - week + second, "Not yet a week")
    await work_order(client, world, NOW - month, "Exactly a month")
    await work_order(client, world, NOW - month + second, "Nearly a month")
    started = await work_order(client, world, NOW - month - week, "Started long ago")
    done = await work_order(client, world, NOW - month, "Resolved long ago")
    clock.set_now(NOW - month)
    for issue, status in ((started, "IN_PROGRESS"), (done, "RESOLVED")):
        response = await client.patch(
            f"/api/v1/projects/{world.project.id}/issues/{issue['id']}",
            json={"status": status},
            headers=world.manager.headers,
        )
        assert response.status_code == 200
    clock.set_now(NOW - month)
    construction = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": "A construction issue", "issueKind": "CONSTRUCTION"},
        headers=world.manager.headers,
    )
    assert construction.status_code == 200

    counts = await digest(client)
    assert counts["ok"] is True and counts["day"] == "2026-11-23"
    [mail] = read_mails(outbox, to=world.manager.user.email)
    text = mail_text(mail)
    week = section(text, "Open for 7 days or more:")
    assert len(week) == 2
    assert "Exactly a week" in week[0] or "Exactly a week" in week[1]
    assert any("Nearly a month" in line for line in week)
    month_lines = section(text, "Open for 30 days or more:")
    assert len(month_lines) == 2
    assert any("Exactly a month" in line for line in month_lines)
    assert any("Started long ago" in line and "in progress" in line for line in month_lines)
    for absent in ("Not yet a week", "Resolved long ago", "A construction issue"):
        assert absent not in text
    assert mail["Subject"].startswith("Work orders open too long — 4 items")
    assert f"/projects/{world.project.id}/issues/" in text
    html_part = mail.get_body(preferencelist=("html",))
    assert html_part is not None and world.project.name in str(html_part.get_content())


async def test_managers_who_can_see_the_project_get_it_once(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world = await ops_world()
    restricted = await create_user(name="Rita Restricted")
    await add_member(world.workspace, restricted, "MANAGER", project_ids=[])
    await work_order(client, world, NOW - timedelta(days=8), "Broken door closer")

    first = await digest(client)
    assert first["workspacesNotified"] >= 1 and first["membersEmailed"] >= 3
    for manager in (world.owner, world.admin, world.manager):
        assert len(read_mails(outbox, to=manager.user.email)) == 1
    for outsider in (world.member, restricted):
        assert read_mails(outbox, to=outsider.user.email) == []
    async with database.sessionmaker() as db:
        query = select(Notification).where(
            Notification.user_id == world.manager.user.id, Notification.kind == "WORK_ORDER_AGING"
        )
        [note] = (await db.execute(query)).scalars()
    assert note.title == "Work orders open too long: 1 item"
    [run] = await runs_of(world.workspace.id)
    assert run.kind == "om-work-order-aging" and run.members == 3

    again = await digest(client)
    assert again["workspacesSkipped"] >= 1
    for manager in (world.owner, world.admin, world.manager):
        assert len(read_mails(outbox, to=manager.user.email)) == 1

    # The next UTC day it is sent again.
    clock.set_now(NOW + timedelta(days=1))
    response = await client.post(ROUTE, headers=CRON)
    assert response.json()["day"] == "2026-11-24"
    assert len(read_mails(outbox, to=world.manager.user.email)) == 2


async def test_two_concurrent_calls_send_once(client: httpx.AsyncClient, outbox: Path) -> None:
    world = await ops_world()
    await work_order(client, world, NOW - timedelta(days=9), "Loose handrail")
    clock.set_now(NOW)
    responses = await asyncio.gather(
        client.post(ROUTE, headers=CRON), client.post(ROUTE, headers=CRON)
    )
    assert [r.status_code for r in responses] == [200, 200]
    assert len(await runs_of(world.workspace.id)) == 1
    assert len(read_mails(outbox, to=world.manager.user.email)) == 1


async def test_projects_without_om_and_lost_access_are_left_out(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world = await ops_world()
    await work_order(client, world, NOW - timedelta(days=10), "Faulty light")
    await set_project(world.project.id, operations_mode=False)
    await digest(client)
    assert read_mails(outbox, to=world.manager.user.email) == []
    assert await runs_of(world.workspace.id) == []


async def test_the_route_needs_the_cron_secret(client: httpx.AsyncClient) -> None:
    response = await client.post(ROUTE, headers={"x-service-cron-secret": "wrong"})
    assert response.status_code == 401
    assert (await client.post(ROUTE)).status_code == 401
