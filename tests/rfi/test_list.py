"""GET /projects/{p}/rfi and /rfi/export.csv: filters, pagination, query counts, visibility."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import insert

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import RfiMessage
from tests.factories import (
    QueryCounter,
    World,
    create_api_key,
    external,
    key_headers,
    make_world,
    set_project,
)
from tests.rfi.helpers import create_rfi, insert_rfis, patch_rfi, post_message, rfi_url


async def _ids(
    client: httpx.AsyncClient, world: World, headers: dict[str, str], **params: str
) -> list[str]:
    response = await client.get(rfi_url(world.project.id), params=params, headers=headers)
    assert response.status_code == 200, response.text
    return [r["id"] for r in response.json()]


async def test_list_is_newest_first_with_filters(client: httpx.AsyncClient) -> None:
    world = await make_world()
    h = world.member.headers
    a = await create_rfi(client, world.project.id, h, title="Curtain wall anchors", priority="HIGH")
    b = await create_rfi(
        client,
        world.project.id,
        h,
        title="Paint spec",
        question="Which 100% acrylic?",
        assigneeIds=[world.admin.id],
    )
    c = await create_rfi(
        client, world.project.id, h, title="Stair nosing", assigneeIds=[world.admin.id]
    )
    assert (await patch_rfi(client, c, world.member, status="IN_REVIEW")).status_code == 200

    assert await _ids(client, world, h) == [c["id"], b["id"], a["id"]]
    assert await _ids(client, world, h, status="IN_REVIEW") == [c["id"]]
    assert await _ids(client, world, h, status="OPEN") == [b["id"], a["id"]]
    assert await _ids(client, world, h, priority="HIGH") == [a["id"]]
    assert await _ids(client, world, h, assigneeId=world.admin.id) == [c["id"], b["id"]]
    assert await _ids(client, world, h, q="curtain") == [a["id"]]
    assert await _ids(client, world, h, q="100%") == [b["id"]]
    assert await _ids(client, world, h, q="%") == [b["id"]]
    assert await _ids(client, world, h, q=str(c["rfiNumber"])) == [c["id"]]
    # A digit that is not a decimal (superscript one) is text, never a number: no 500.
    assert await _ids(client, world, h, q="\u00b9") == []
    clock.set_now(clock.now() + timedelta(minutes=1))  # past the sync settle window
    future = (clock.now() + timedelta(days=1)).isoformat()
    assert await _ids(client, world, h, updatedSince=future) == []
    assert await _ids(client, world, h, updatedSince=c["createdAt"]) == [c["id"]]

    for params in (
        {"status": "DONE"},
        {"priority": "URGENT"},
        {"updatedSince": "yesterday"},
        {"limit": "0"},
    ):
        response = await client.get(rfi_url(world.project.id), params=params, headers=h)
        assert response.status_code == 400, params
        assert response.json()["code"] == "VALIDATION_FAILED"


async def test_pagination_follows_the_link_header(client: httpx.AsyncClient) -> None:
    world = await make_world()
    created = [await create_rfi(client, world.project.id, world.member.headers) for _ in range(5)]
    expected = [r["id"] for r in reversed(created)]
    seen: list[str] = []
    url: str | None = rfi_url(world.project.id) + "?limit=2"
    while url:
        response = await client.get(url, headers=world.member.headers)
        assert response.status_code == 200
        page = response.json()
        assert len(page) <= 2
        seen.extend(r["id"] for r in page)
        link = response.headers.get("link")
        url = link[1 : link.index(">")] if link else None
    assert seen == expected


async def test_list_runs_a_fixed_number_of_queries(client: httpx.AsyncClient) -> None:
    small, large = await make_world(), await make_world()
    await insert_rfis(small, 1, [small.member.id, small.admin.id])
    await insert_rfis(large, 500, [large.member.id, large.admin.id])
    counts = []
    for world, expected in ((small, 1), (large, 500)):
        with QueryCounter() as queries:
            response = await client.get(
                rfi_url(world.project.id), params={"limit": 1000}, headers=world.manager.headers
            )
        assert response.status_code == 200
        rows = response.json()
        assert len(rows) == expected
        assert rows[0]["assigneeIds"] == [world.member.id, world.admin.id]
        assert rows[0]["ballInCourt"] == [world.member.id, world.admin.id]
        counts.append(queries.count)
    assert counts[0] == counts[1], counts
    assert counts[1] <= 6, counts


async def _insert_messages(world: World, rfi: dict[str, Any], count: int) -> None:
    """``count`` messages straight into the thread, by two users and an API key in turn."""
    authors = [world.member.id, world.admin.id, None]
    now = clock.now()
    rows = [
        {
            "id": new_id(),
            "rfi_id": rfi["id"],
            "project_id": rfi["projectId"],
            "workspace_id": world.workspace.id,
            "body": f"<p>Message {i}</p>",
            "created_by": authors[i % 3],
            "created_key_id": None if authors[i % 3] else new_id(),
            "created_at": now,
        }
        for i in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(RfiMessage), rows)
        await db.commit()


async def test_message_list_runs_a_fixed_number_of_queries(
    client: httpx.AsyncClient, world: World
) -> None:
    counts = []
    for n in (1, 500):
        rfi = await create_rfi(client, world.project.id, world.member.headers)
        await _insert_messages(world, rfi, n)
        with QueryCounter() as queries:
            response = await client.get(
                rfi_url(world.project.id, rfi["id"], "messages"),
                params={"limit": 1000},
                headers=world.member.headers,
            )
        assert response.status_code == 200 and "link" not in response.headers
        rows = response.json()
        assert len(rows) == n
        assert rows[-1]["authorName"] == "Mel Member"
        counts.append(queries.count)
    assert {r["authorName"] for r in rows} == {"Mel Member", "Ada Admin", "API key"}
    assert counts[0] == counts[1], counts


async def test_contractors_see_only_the_rfis_they_respond_to(client: httpx.AsyncClient) -> None:
    world = await make_world()
    contractor = await external(world, "CONTRACTOR")
    mine = await create_rfi(
        client, world.project.id, world.member.headers, assigneeIds=[contractor.id]
    )
    other = await create_rfi(client, world.project.id, world.member.headers)
    assert await _ids(client, world, contractor.headers) == [mine["id"]]
    assert (
        await client.get(rfi_url(world.project.id, mine["id"]), headers=contractor.headers)
    ).status_code == 200
    for path in (other["id"], f"{other['id']}/messages"):
        response = await client.get(rfi_url(world.project.id, path), headers=contractor.headers)
        assert response.status_code == 404
    response = await client.post(
        rfi_url(world.project.id, other["id"], "messages"),
        json={"body": "x"},
        headers=contractor.headers,
    )
    assert response.status_code == 404
    export = await client.get(rfi_url(world.project.id, "export.csv"), headers=contractor.headers)
    rows = list(csv.reader(io.StringIO(export.text)))
    assert [r[-1] for r in rows[1:]] == [mine["id"]]
    # Removed from the RFI, the contractor no longer sees it.
    await patch_rfi(client, mine, world.member, assigneeIds=[])
    assert await _ids(client, world, contractor.headers) == []


async def test_clients_see_rfis_only_when_shared(client: httpx.AsyncClient) -> None:
    world = await make_world()
    viewer = await external(world, "CLIENT")
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    # Not shared: the collections answer 403, an RFI 404 (like any the caller cannot see).
    for collection in ("", "/export.csv"):
        refused = await client.get(rfi_url(world.project.id) + collection, headers=viewer.headers)
        assert refused.status_code == 403
        assert refused.json()["error"] == "RFIs are not shared with clients on this project"
    assert (
        await client.get(rfi_url(world.project.id, rfi["id"]), headers=viewer.headers)
    ).status_code == 404
    await set_project(world.project.id, client_visibility={"showRfis": True})
    assert await _ids(client, world, viewer.headers) == [rfi["id"]]
    # Clients comment, but do not edit.
    message = await post_message(client, rfi, viewer, "Can we see a sample?")
    assert message["createdBy"] == viewer.id
    assert (await patch_rfi(client, rfi, viewer, title="x")).status_code == 403


async def test_export_csv(client: httpx.AsyncClient) -> None:
    world = await make_world()
    first = await create_rfi(
        client,
        world.project.id,
        world.member.headers,
        title='=HYPERLINK("http://evil")',
        question="Line one, with comma\nline two",
        assigneeIds=[world.admin.id, world.owner.id],
        dueDate="2027-02-03",
    )
    second = await create_rfi(
        client, world.project.id, world.member.headers, title="Second", priority="HIGH"
    )
    await patch_rfi(client, first, world.member, status="IN_REVIEW")
    answer = await post_message(client, first, world.admin, "<p>Use <b>M16</b> bolts</p>")
    await patch_rfi(client, first, world.admin, status="ANSWERED", answerMessageId=answer["id"])

    response = await client.get(
        rfi_url(world.project.id, "export.csv"), headers=world.member.headers
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    header, *rows = list(csv.reader(io.StringIO(response.text)))
    assert header[0] == "RFI #" and header[-1] == "Id"
    assert [r[-1] for r in rows] == [second["id"], first["id"]]
    record = dict(zip(header, rows[1], strict=True))
    assert record["RFI #"] == str(first["rfiNumber"])
    assert record["Title"] == '\'=HYPERLINK("http://evil")'
    assert record["Question"] == "Line one, with comma\nline two"
    assert record["Status"] == "ANSWERED" and record["Due date"] == "2027-02-03"
    assert record["Manager"] == "Mel Member"
    assert record["Responders"] == "Ada Admin; Olivia Owner"
    assert record["Ball in court"] == "Mel Member"
    assert record["Official response"] == "Use M16 bolts"
    assert record["Answered at"] and record["Closed at"] == ""

    high = await client.get(
        rfi_url(world.project.id, "export.csv"),
        params={"priority": "HIGH"},
        headers=world.member.headers,
    )
    assert [r[-1] for r in list(csv.reader(io.StringIO(high.text)))[1:]] == [second["id"]]

    raw, _ = await create_api_key(world.project, ["rfi:read"])
    keyed = await client.get(rfi_url(world.project.id, "export.csv"), headers=key_headers(raw))
    assert keyed.status_code == 200
    assert (await client.get(rfi_url(world.project.id, "export.csv"))).status_code == 401
    other = await make_world()
    assert (
        await client.get(rfi_url(world.project.id, "export.csv"), headers=other.owner.headers)
    ).status_code == 404


async def test_export_streams_across_batches(client: httpx.AsyncClient) -> None:
    world = await make_world()
    await insert_rfis(world, 1203, [world.member.id])
    response = await client.get(
        rfi_url(world.project.id, "export.csv"), headers=world.member.headers
    )
    rows = list(csv.reader(io.StringIO(response.text)))[1:]
    assert len(rows) == 1203
    assert len({r[-1] for r in rows}) == 1203
    assert sorted(int(r[0]) for r in rows) == list(range(10_000, 11_203))
    assert {r[6] for r in rows} == {"Mel Member"}
