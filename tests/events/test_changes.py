"""The change feed: what changed since a cursor, deletions included, read from the event log."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest

from plumbline.kit import clock
from tests.factories import (
    QueryCounter,
    World,
    create_api_key,
    external,
    key_headers,
    make_world,
)


def changes_url(world: World) -> str:
    return f"/api/v1/projects/{world.project.id}/changes"


def issues_url(world: World) -> str:
    return f"/api/v1/projects/{world.project.id}/issues"


async def feed(
    client: httpx.AsyncClient, world: World, headers: dict[str, str] | None = None, **params: Any
) -> dict[str, Any]:
    answer = await client.get(
        changes_url(world), params=params, headers=headers or world.member.headers
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def _issue(client: httpx.AsyncClient, world: World, title: str) -> dict[str, Any]:
    answer = await client.post(
        issues_url(world), json={"title": title}, headers=world.member.headers
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def test_each_record_once_at_its_last_change_and_deletions_as_tombstones(
    client: httpx.AsyncClient, world: World
) -> None:
    kept = await _issue(client, world, "Kept")
    gone = await _issue(client, world, "Gone")
    url = f"{issues_url(world)}/{kept['id']}"
    edited = await client.patch(url, json={"title": "Kept, edited"}, headers=world.member.headers)
    await client.delete(f"{issues_url(world)}/{gone['id']}", headers=world.member.headers)

    page = await feed(client, world)
    assert page["hasMore"] is False
    assert [(c["type"], c["id"]) for c in page["changes"]] == [
        ("issue", kept["id"]),
        ("issue", gone["id"]),
    ]
    assert page["changes"][0]["event"] == "issue.updated"
    assert page["changes"][0]["data"] == edited.json()
    tombstone = page["changes"][1]
    assert set(tombstone) == {"type", "id", "deletedAt"}

    # Nothing new since: an empty page and the same position.
    later = await feed(client, world, since=page["cursor"])
    assert later == {"changes": [], "cursor": page["cursor"], "hasMore": False}
    fresh = await _issue(client, world, "Fresh")
    after = await feed(client, world, since=page["cursor"])
    assert [c["id"] for c in after["changes"]] == [fresh["id"]]
    assert after["changes"][0]["event"] == "issue.created"


async def test_pages_follow_the_cursor_without_skipping_or_repeating(
    client: httpx.AsyncClient, world: World
) -> None:
    made = [await _issue(client, world, f"Issue {n}") for n in range(7)]
    seen: list[str] = []
    page = await feed(client, world, limit=3)
    pages = 1
    while True:
        seen += [c["id"] for c in page["changes"]]
        if not page["hasMore"]:
            break
        page = await feed(client, world, limit=3, since=page["cursor"])
        pages += 1
    assert seen == [issue["id"] for issue in made]
    assert pages == 3


async def test_a_sync_loop_rebuilds_the_projects_issues_while_another_task_writes(
    client: httpx.AsyncClient, world: World
) -> None:
    done = asyncio.Event()

    async def write() -> None:
        made: list[str] = []
        for n in range(24):
            made.append((await _issue(client, world, f"Concurrent {n}"))["id"])
            if n % 3 == 1:
                await client.patch(
                    f"{issues_url(world)}/{made[n - 1]}",
                    json={"status": "RESOLVED", "title": f"Edited {n}"},
                    headers=world.member.headers,
                )
            if n % 5 == 4:
                await client.delete(
                    f"{issues_url(world)}/{made[n - 2]}", headers=world.member.headers
                )
        done.set()

    async def sync() -> dict[str, dict[str, Any]]:
        mirror: dict[str, dict[str, Any]] = {}
        cursor = None
        while True:
            finished = done.is_set()  # read before the page: a page after it sees every write
            page = await feed(
                client, world, limit=5, types="issue", **({"since": cursor} if cursor else {})
            )
            for change in page["changes"]:
                if "deletedAt" in change and "data" not in change:
                    mirror.pop(change["id"], None)
                else:
                    mirror[change["id"]] = change["data"]
            cursor = page["cursor"]
            if finished and not page["hasMore"]:
                return mirror
            await asyncio.sleep(0)

    _, mirror = await asyncio.gather(write(), sync())
    listed = await client.get(issues_url(world), headers=world.member.headers)
    assert mirror == {issue["id"]: issue for issue in listed.json()}
    assert len(mirror) == 24 - 4


async def test_types_keys_and_externals(client: httpx.AsyncClient, world: World) -> None:
    issue = await _issue(client, world, "Typed")
    rfi = await client.post(
        f"/api/v1/projects/{world.project.id}/rfi",
        json={"title": "Which paint?", "question": "Which one?"},
        headers=world.member.headers,
    )
    assert rfi.status_code == 200, rfi.text
    only_rfis = await feed(client, world, types="rfi")
    assert [c["id"] for c in only_rfis["changes"]] == [rfi.json()["id"]]

    raw, _ = await create_api_key(world.project, ["project:read", "issues:read"])
    keyed = await feed(client, world, headers=key_headers(raw))
    assert [c["id"] for c in keyed["changes"]] == [issue["id"]]  # no rfi:read, no RFIs
    refused = await client.get(
        changes_url(world), params={"types": "rfi"}, headers=key_headers(raw)
    )
    assert refused.status_code == 403
    assert refused.json() == {"error": "API key missing scope: rfi:read", "code": "API_KEY_SCOPE"}
    raw_no_read, _ = await create_api_key(world.project, ["issues:read"])
    no_project = await client.get(changes_url(world), headers=key_headers(raw_no_read))
    assert no_project.status_code == 403

    contractor = await external(world, "CONTRACTOR")
    assert (await client.get(changes_url(world), headers=contractor.headers)).status_code == 403
    other = await make_world()
    assert (await client.get(changes_url(world), headers=other.member.headers)).status_code == 404


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"types": "issue,unicorn"}, "VALIDATION_FAILED"),
        ({"since": "not-a-cursor"}, "VALIDATION_FAILED"),
        ({"limit": "1001"}, "VALIDATION_FAILED"),
    ],
)
async def test_bad_queries_are_400(
    client: httpx.AsyncClient, world: World, params: dict[str, str], code: str
) -> None:
    answer = await client.get(changes_url(world), params=params, headers=world.member.headers)
    assert answer.status_code == 400
    assert answer.json()["code"] == code


async def test_a_tampered_or_foreign_cursor_is_refused(
    client: httpx.AsyncClient, world: World
) -> None:
    await _issue(client, world, "One")
    cursor = (await feed(client, world))["cursor"]
    stream, _, signature = cursor.rpartition(".")
    tampered = stream.rsplit(":", 1)[0] + ":0." + signature
    answer = await client.get(
        changes_url(world), params={"since": tampered}, headers=world.member.headers
    )
    assert answer.status_code == 400
    other = await make_world()
    foreign = await client.get(
        f"/api/v1/projects/{other.project.id}/changes",
        params={"since": cursor},
        headers=other.member.headers,
    )
    assert foreign.status_code == 400


async def test_a_cursor_older_than_the_history_kept_is_410(
    client: httpx.AsyncClient, world: World
) -> None:
    first = await _issue(client, world, "Old")
    start = await feed(client, world)
    assert [c["id"] for c in start["changes"]] == [first["id"]]
    beginning = await client.get(changes_url(world), headers=world.member.headers)
    await _issue(client, world, "Also old")
    clock.set_now(clock.now() + timedelta(days=31))
    purge = await client.post(
        "/api/v1/internal/maintenance", headers={"x-service-cron-secret": "test-cron-secret"}
    )
    assert purge.status_code == 200
    clock.set_now(None)  # the purge ran after the response (inline jobs); back to today
    answer = await client.get(
        changes_url(world), params={"since": start["cursor"]}, headers=world.member.headers
    )
    assert answer.status_code == 410, answer.text
    assert answer.json()["code"] == "CURSOR_EXPIRED"
    # Without a cursor the feed starts at the oldest change kept: none is left.
    assert (await feed(client, world))["changes"] == []
    assert beginning.status_code == 200


async def test_a_page_costs_the_same_statements_for_one_change_or_many(
    client: httpx.AsyncClient,
) -> None:
    counts = []
    for size in (1, 40):
        world = await make_world()
        for n in range(size):
            await _issue(client, world, f"Counted {n}")
        with QueryCounter() as queries:
            page = await feed(client, world, limit=1000)
        assert len(page["changes"]) == size
        counts.append(queries.count)
    assert counts[0] == counts[1]


async def test_the_materials_catalogue_has_its_own_feed(
    client: httpx.AsyncClient, world: World
) -> None:
    url = f"/api/v1/workspaces/{world.workspace.id}/materials"
    made = await client.post(
        url,
        json={"name": "Drywall screw", "unit": "box", "unitPrice": "12.50"},
        headers=world.manager.headers,
    )
    assert made.status_code == 200, made.text
    page = (await client.get(f"{url}/changes", headers=world.member.headers)).json()
    assert [(c["type"], c["id"], c["data"]) for c in page["changes"]] == [
        ("material", made.json()["id"], made.json())
    ]
    csv = "name,unit,unitPrice,sku\nAnchor,each,1.20,ANC-1\n"
    imported = await client.post(
        f"{url}/import", content=csv, headers={**world.manager.headers, "Content-Type": "text/csv"}
    )
    assert imported.status_code == 200, imported.text
    after = (
        await client.get(
            f"{url}/changes", params={"since": page["cursor"]}, headers=world.member.headers
        )
    ).json()
    assert [c["data"]["name"] for c in after["changes"]] == ["Anchor"]
