"""A person's labour is counted once: a timed entry (or a timer) sharing time with another of
the person's entries in the workspace is refused with 409 ``LABOUR_OVERLAP`` naming it, on one
work order or across work orders and projects; concurrent writes take turns (issue 40 item 3)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import WorkOrderCost
from plumbline.om.costs import repository
from tests.factories import World, add_member, create_project, om_url, om_world, set_project
from tests.om_cost.helpers import costs_url, create_work_order, ok

WAIT = 120  # seconds: a safety bound on a wait, never a timed assertion
DAY = "2026-03-02"
RATE = {"hourlyRate": "40.00"}


def hours(start: str, end: str, **body: Any) -> dict[str, Any]:
    return {
        "startedAt": f"{DAY}T{start}:00Z",
        "endedAt": f"{DAY}T{end}:00Z",
        "hourlyRate": "40.00",
    } | body


async def log(
    client: httpx.AsyncClient, world: World, order_id: str, body: dict[str, Any]
) -> httpx.Response:
    return await client.post(
        costs_url(world, order_id, "/labour"), json=body, headers=world.member.headers
    )


def refused_for(answer: httpx.Response, entry: dict[str, Any]) -> None:
    """A 409 ``LABOUR_OVERLAP`` naming ``entry``: its id, work order, project and times."""
    assert answer.status_code == 409, answer.text
    body = answer.json()
    assert body["code"] == "LABOUR_OVERLAP" and body["field"] == "startedAt", body
    assert body["overlaps"] == {
        "id": entry["id"],
        "workOrderId": entry["workOrderId"],
        "projectId": entry["projectId"],
        "startedAt": entry["startedAt"],
        "endedAt": entry["endedAt"],
    }


async def totals(client: httpx.AsyncClient, world: World, order_id: str) -> dict[str, str]:
    answer = await ok(await client.get(costs_url(world, order_id), headers=world.member.headers))
    return dict(answer["totals"])


async def test_overlapping_entries_of_one_work_order_are_refused(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    order = await create_work_order(client, world)
    first = await ok(await log(client, world, order["id"], hours("08:00", "12:00")))
    refused_for(await log(client, world, order["id"], hours("10:00", "14:00")), first)
    refused_for(await log(client, world, order["id"], hours("09:00", "11:00")), first)
    refused_for(await log(client, world, order["id"], hours("07:00", "13:00")), first)
    # end to start is no overlap, either way round
    await ok(await log(client, world, order["id"], hours("12:00", "14:00")))
    await ok(await log(client, world, order["id"], hours("06:00", "08:00")))
    # minutes alone have no place in time: never refused
    await ok(await log(client, world, order["id"], {"minutes": 30, "hourlyRate": "40.00"}))
    # 4 h + 2 h + 2 h + 0.5 h at 40.00: each hour counted once
    assert (await totals(client, world, order["id"]))["labour"] == "340.00"


async def test_a_person_is_one_person_across_work_orders_and_projects(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    order = await create_work_order(client, world)
    first = await ok(await log(client, world, order["id"], hours("08:00", "12:00")))
    another = await create_work_order(client, world, title="AHU belts")
    refused_for(await log(client, world, another["id"], hours("10:00", "14:00")), first)

    # another project of the workspace
    project = await create_project(world.workspace, name=f"Tower {new_id()[-6:]}")
    await set_project(project.id, operations_mode=True)
    elsewhere = await ok(
        await client.post(
            f"/api/v1/projects/{project.id}/issues",
            json={"title": "Pump seal", "issueKind": "WORK_ORDER"},
            headers=world.manager.headers,
        )
    )
    url = om_url(project, f"/work-orders/{elsewhere['id']}/costs/labour")
    answer = await client.post(url, json=hours("09:00", "11:00"), headers=world.member.headers)
    refused_for(answer, first)
    assert first["projectId"] == world.project.id

    # someone else's time is theirs
    body = hours("08:00", "12:00", userId=world.manager.id)
    assert (await log(client, world, another["id"], body)).status_code == 200
    assert (await totals(client, world, another["id"]))["labour"] == "160.00"

    # the same person in another workspace: that workspace's time, not this one's
    other = await om_world()
    await add_member(other.workspace, world.member)
    other_order = await create_work_order(client, other)
    url = costs_url(other, other_order["id"], "/labour")
    answer = await client.post(url, json=hours("08:00", "12:00"), headers=world.member.headers)
    assert answer.status_code == 200, answer.text

    # an entry of a deleted work order holds no time
    issue = f"/api/v1/projects/{world.project.id}/issues/{order['id']}"
    await ok(await client.delete(issue, headers=world.manager.headers))
    await ok(await log(client, world, another["id"], hours("10:00", "14:00")))


async def test_timers_hold_the_time_from_their_start(client: httpx.AsyncClient) -> None:
    world = await om_world()
    order = await create_work_order(client, world)
    timer_url = costs_url(world, order["id"], "/timer")
    clock.set_now(datetime(2026, 3, 2, 10, tzinfo=UTC))
    timer = await ok(
        await client.post(
            timer_url + "/start", json={"hourlyRate": "40.00"}, headers=world.member.headers
        )
    )
    # a running timer holds its time from its start on
    refused_for(await log(client, world, order["id"], hours("09:00", "10:30")), timer)
    refused_for(await log(client, world, order["id"], hours("15:00", "16:00")), timer)
    await ok(await log(client, world, order["id"], hours("08:00", "10:00")))
    clock.set_now(datetime(2026, 3, 2, 12, tzinfo=UTC))
    stopped = await ok(await client.post(timer_url + "/stop", headers=world.member.headers))
    assert (stopped["startedAt"], stopped["endedAt"]) == (
        f"{DAY}T10:00:00.000Z",
        f"{DAY}T12:00:00.000Z",
    )

    # a timer is not started inside an entry, and starts where one ends
    entry = await ok(await log(client, world, order["id"], hours("12:00", "13:00")))
    clock.set_now(datetime(2026, 3, 2, 12, 30, tzinfo=UTC))
    refused_for(
        await client.post(timer_url + "/start", json=RATE, headers=world.member.headers), entry
    )
    clock.set_now(datetime(2026, 3, 2, 13, tzinfo=UTC))
    await ok(await client.post(timer_url + "/start", json=RATE, headers=world.member.headers))

    # an entry written before this rule, inside the timer's time: the timer is not stopped
    # over it (delete one of the two first)
    legacy = WorkOrderCost(
        id=new_id(),
        project_id=world.project.id,
        workspace_id=world.workspace.id,
        work_order_id=order["id"],
        kind="LABOUR",
        user_id=world.member.id,
        started_at=datetime(2026, 3, 2, 13, 30, tzinfo=UTC),
        ended_at=datetime(2026, 3, 2, 14, tzinfo=UTC),
        minutes=30,
        hourly_rate=40,
        amount=20,
        incurred_at=datetime(2026, 3, 2, 13, 30, tzinfo=UTC),
        created_at=clock.now(),
        updated_at=clock.now(),
    )
    async with database.sessionmaker() as db:
        db.add(legacy)
        await db.commit()
    clock.set_now(datetime(2026, 3, 2, 14, 30, tzinfo=UTC))
    answer = await client.post(timer_url + "/stop", headers=world.member.headers)
    assert answer.status_code == 409, answer.text
    assert answer.json()["overlaps"]["id"] == legacy.id
    gone = await client.delete(
        costs_url(world, order["id"], f"/{legacy.id}"), headers=world.member.headers
    )
    assert gone.status_code == 200, gone.text
    await ok(await client.post(timer_url + "/stop", headers=world.member.headers))
    # 2 h (08-10) + 2 h (timer) + 1 h (12-13) + 1.5 h (timer) at 40.00
    assert (await totals(client, world, order["id"]))["labour"] == "260.00"


async def _waiting_for_the_person(watcher: Any, workspace_id: str, user_id: str) -> bool:
    """PostgreSQL: whether a transaction waits for the person's labour lock. SQLite: yes (its
    writers wait at BEGIN IMMEDIATE, which cannot be seen from outside)."""
    if database.engine.dialect.name != "postgresql":
        return True
    waiting = text(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        " AND classid = :classid AND objid = :objid AND objsubid = 2"
    )
    # pg_locks shows the second key as an oid (unsigned)
    key = repository.person_key(workspace_id, user_id) % 2**32
    params = {"classid": repository.PERSON_LOCK, "objid": key}
    return bool((await watcher.execute(waiting, params)).scalar_one())


async def test_two_concurrent_overlapping_entries_are_not_both_written(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each request checks the person's time, then (the first to check) waits until the
    other has checked too or waits for the person's lock: without the lock both pass the
    check before either writes, and both would be written."""
    world = await om_world()
    orders = [await create_work_order(client, world) for _ in range(2)]
    checked = 0
    overlapping = repository.overlapping

    async def held(db: Any, workspace_id: str, user_id: str, *args: Any) -> Any:
        nonlocal checked
        found = await overlapping(db, workspace_id, user_id, *args)
        checked += 1
        async with asyncio.timeout(WAIT), database.engine.connect() as watcher:
            while checked < 2 and not await _waiting_for_the_person(watcher, workspace_id, user_id):
                await asyncio.sleep(0.05)
        return found

    monkeypatch.setattr(repository, "overlapping", held)
    answers = await asyncio.gather(
        log(client, world, orders[0]["id"], hours("08:00", "12:00")),
        log(client, world, orders[1]["id"], hours("10:00", "14:00")),
    )
    assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
    written = next(a.json() for a in answers if a.status_code == 200)
    refused_for(next(a for a in answers if a.status_code == 409), written)
    labour = [(await totals(client, world, o["id"]))["labour"] for o in orders]
    assert sorted(labour) == ["0.00", "160.00"]
