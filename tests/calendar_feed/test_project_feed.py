"""A project's feed read back with ``icalendar``: its events, UIDs, days, instants and RRULEs;
the owner's access at every fetch; a fixed number of statements whatever the rows."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import httpx

from plumbline.kit.ids import new_id
from tests.calendar_feed.helpers import by_uid, fetch, make_feed, path_of, rrule
from tests.factories import (
    QueryCounter,
    World,
    create_asset,
    create_schedule,
    om_world,
    set_project,
)
from tests.om_inspections.helpers import FIRE_WALK, create_template

HOST = "127.0.0.1"  # of the public URL


async def _post(client: httpx.AsyncClient, world: World, path: str, body: dict[str, Any]) -> Any:
    response = await client.post(
        f"/api/v1/projects/{world.project.id}/{path}", json=body, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


async def _records(client: httpx.AsyncClient, world: World, n: int = 1) -> dict[str, Any]:
    """``n`` of each kind a project feed shows, and a few it must not."""
    asset = await create_asset(client, world, meters=[{"type": "RUN_HOURS", "unit": "h"}])
    made: dict[str, Any] = {"monthly": [], "rfi": [], "punch": [], "proposal": []}
    for _ in range(n):
        made["monthly"].append(
            await create_schedule(
                client, world, asset["id"], nextDueAt="2027-01-15T03:00:00Z", title="Filters"
            )
        )
        made["rfi"].append(
            await _post(client, world, "rfi", {"title": "Beam depth?", "dueDate": "2027-03-10"})
        )
        made["punch"].append(
            await _post(client, world, "punch", {"title": "Touch up", "dueDate": "2027-03-12"})
        )
        made["proposal"].append(
            await _post(
                client,
                world,
                "proposals",
                {"title": "Fit-out", "validUntil": "2027-04-01T17:00:00Z"},
            )
        )
    made["custom"] = await create_schedule(
        client,
        world,
        asset["id"],
        frequency="CUSTOM",
        intervalDays=10,
        nextDueAt="2027-02-01T15:00:00Z",
    )
    made["metered"] = await create_schedule(
        client, world, asset["id"], meterType="RUN_HOURS", meterInterval=500
    )
    made["paused"] = await create_schedule(client, world, asset["id"], isActive=False)
    made["template"] = await create_template(client, world, FIRE_WALK)
    made["undated_rfi"] = await _post(client, world, "rfi", {"title": "No date"})
    made["issue"] = await _post(client, world, "issues", {"title": "Leak", "dueDate": "2027-03-01"})
    tasks = [
        {"id": f"dig-{i}", "name": "Excavation", "startDate": "2027-03-01T08:00:00Z",
         "endDate": "2027-03-05T17:00:00Z"}
        for i in range(n)
    ] + [
        {"id": "handover", "name": "Handover", "startDate": "2027-06-30T12:00:00Z",
         "endDate": "2027-06-30T12:00:00Z", "isMilestone": True},
    ]  # fmt: skip
    put = await client.put(
        f"/api/v1/projects/{world.project.id}/schedule",
        json={"tasks": tasks},
        headers=world.manager.headers,
    )
    assert put.status_code == 200, put.text
    return made


async def test_project_feed_events_uids_and_rrules(client: httpx.AsyncClient) -> None:
    world = await om_world(timezone="America/New_York")
    made = await _records(client, world)
    feed = await make_feed(client, world.member.headers, world.project.id)
    response = await client.get(path_of(feed))
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/calendar; charset=utf-8"
    for line in (
        b"REFRESH-INTERVAL;VALUE=DURATION:PT1H",
        b"X-PUBLISHED-TTL:PT1H",
        b"METHOD:PUBLISH",
        b"X-WR-CALNAME:Tower A",
    ):
        assert line in response.content, line
    events = by_uid(await fetch(client, feed))
    monthly, rfi, punch, proposal = (made[k][0] for k in ("monthly", "rfi", "punch", "proposal"))
    expected = {
        f"maintenance-{monthly['id']}@{HOST}",
        f"maintenance-{made['custom']['id']}@{HOST}",
        f"maintenance-{made['metered']['id']}@{HOST}",
        f"inspection-{made['template']['id']}@{HOST}",
        f"rfi-{rfi['id']}@{HOST}",
        f"punch-{punch['id']}@{HOST}",
        f"proposal-{proposal['id']}@{HOST}",
        f"task-{world.project.id}-dig-0@{HOST}",
        f"task-{world.project.id}-handover@{HOST}",
    }
    assert set(events) == expected  # not the paused schedule, the undated RFI, the issue

    # A calendar schedule repeats; due 03:00 UTC is the 14th in New York, all day.
    event = events[f"maintenance-{monthly['id']}@{HOST}"]
    assert event.start == date(2027, 1, 14) and event.end == date(2027, 1, 15)
    assert rrule(event) == "FREQ=MONTHLY"
    assert str(event["SUMMARY"]).startswith("Maintenance: Filters (AHU-")
    custom = events[f"maintenance-{made['custom']['id']}@{HOST}"]
    assert custom.start == date(2027, 2, 1)
    assert rrule(custom) == "FREQ=DAILY;INTERVAL=10"
    # A meter schedule is one event: a reading may bring its next due forward.
    metered = events[f"maintenance-{made['metered']['id']}@{HOST}"]
    assert rrule(metered) is None and "Meter/calendar" in str(metered["DESCRIPTION"])
    # 31 Jan 09:00 UTC is the 31st in New York: the last day of every month.
    inspection = events[f"inspection-{made['template']['id']}@{HOST}"]
    assert inspection.start == date(2026, 1, 31)
    assert rrule(inspection) == "FREQ=MONTHLY;BYMONTHDAY=-1"
    assert str(inspection["SUMMARY"]) == "Inspection: Monthly fire-safety walk"

    rfi_event = events[f"rfi-{rfi['id']}@{HOST}"]
    assert rfi_event.start == date(2027, 3, 10) and rfi_event.end == date(2027, 3, 11)
    assert str(rfi_event["SUMMARY"]) == f"RFI #{rfi['rfiNumber']} due: Beam depth?"
    assert events[f"punch-{punch['id']}@{HOST}"].start == date(2027, 3, 12)
    # Instants are UTC date-times.
    expiry = events[f"proposal-{proposal['id']}@{HOST}"]
    assert expiry.start == datetime(2027, 4, 1, 17, tzinfo=UTC)
    assert f"Proposal {proposal['reference']} expires: Fit-out" == str(expiry["SUMMARY"])
    task = events[f"task-{world.project.id}-dig-0@{HOST}"]
    assert task.start == datetime(2027, 3, 1, 8, tzinfo=UTC)
    assert task.end == datetime(2027, 3, 5, 17, tzinfo=UTC)
    milestone = events[f"task-{world.project.id}-handover@{HOST}"]
    assert str(milestone["SUMMARY"]) == "Milestone: Handover" and "DTEND" not in milestone
    for found in events.values():
        assert "DTSTAMP" in found


async def test_uids_are_stable_across_fetches_and_edits(client: httpx.AsyncClient) -> None:
    world = await om_world()
    made = await _records(client, world)
    feed = await make_feed(client, world.manager.headers, world.project.id)
    first = by_uid(await fetch(client, feed))
    rfi = made["rfi"][0]
    edited = await client.patch(
        f"/api/v1/projects/{world.project.id}/rfi/{rfi['id']}",
        json={"title": "Beam depth at grid C?", "dueDate": "2027-03-20"},
        headers=world.manager.headers,
    )
    assert edited.status_code == 200, edited.text
    second = by_uid(await fetch(client, feed))
    assert set(second) == set(first)
    moved = second[f"rfi-{rfi['id']}@{HOST}"]
    assert moved.start == date(2027, 3, 20)
    assert "Beam depth at grid C?" in str(moved["SUMMARY"])


async def test_the_feed_honours_modules_and_the_owners_access(
    client: httpx.AsyncClient,
) -> None:
    world = await om_world()
    made = await _records(client, world)
    feed = await make_feed(client, world.member.headers, world.project.id)
    uids = set(by_uid(await fetch(client, feed)))
    assert f"rfi-{made['rfi'][0]['id']}@{HOST}" in uids

    # A module switched off leaves the feed; the rest stays.
    await set_project(world.project.id, modules={"rfi": False, "schedule": False})
    left = set(by_uid(await fetch(client, feed)))
    assert not any(uid.startswith(("rfi-", "task-")) for uid in left)
    assert f"punch-{made['punch'][0]['id']}@{HOST}" in left
    await set_project(world.project.id, modules={})

    # Restricted away from the project: 404; given it back: the feed again.
    base = f"/api/v1/workspaces/{world.workspace.id}/members/{world.member.id}"
    other = await client.post(
        f"/api/v1/workspaces/{world.workspace.id}/projects",
        json={"name": f"Other {new_id()}"},
        headers=world.owner.headers,
    )
    assert other.status_code == 200, other.text
    restrict = await client.patch(
        f"{base}/project-access", json={"projectIds": [other.json()["id"]]},
        headers=world.owner.headers,
    )  # fmt: skip
    assert restrict.status_code == 200, restrict.text
    assert (await client.get(path_of(feed))).status_code == 404
    unrestrict = await client.patch(
        f"{base}/project-access", json={"projectIds": None}, headers=world.owner.headers
    )
    assert unrestrict.status_code == 200, unrestrict.text
    assert (await client.get(path_of(feed))).status_code == 200

    # Removed from the workspace: 404, GET and HEAD alike.
    removed = await client.delete(base, headers=world.owner.headers)
    assert removed.status_code == 200, removed.text
    gone = await client.get(path_of(feed))
    assert gone.status_code == 404 and gone.json()["code"] == "NOT_FOUND"
    assert (await client.head(path_of(feed))).status_code == 404

    # A deleted project's feeds stop too.
    manager_feed = await make_feed(client, world.manager.headers, world.project.id)
    deleted = await client.delete(
        f"/api/v1/projects/{world.project.id}", headers=world.owner.headers
    )
    assert deleted.status_code == 200, deleted.text
    assert (await client.get(path_of(manager_feed))).status_code == 404


async def test_head_answers_the_headers_without_the_body(client: httpx.AsyncClient) -> None:
    world = await om_world()
    await _records(client, world)
    feed = await make_feed(client, world.member.headers, world.project.id)
    got = await client.get(path_of(feed))
    head = await client.head(path_of(feed))
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "text/calendar; charset=utf-8"
    assert head.headers["content-length"] == str(len(got.content))


async def test_fixed_statements_whatever_the_rows(client: httpx.AsyncClient) -> None:
    counts = []
    for n in (1, 6):
        world = await om_world()
        await _records(client, world, n)
        feed = await make_feed(client, world.member.headers, world.project.id)
        with QueryCounter() as queries:
            events = by_uid(await fetch(client, feed))
        assert sum(uid.startswith("rfi-") for uid in events) == n
        counts.append(queries.count)
    assert counts[0] == counts[1], counts
    # The feed and its owner's access, six kinds of record, the last-use stamp.
    assert counts[0] == 8, counts
