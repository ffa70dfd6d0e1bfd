"""POST /projects/{p}/issues/bulk: the issue rules each record goes through (scopes, roles,
contractors, kinds, status stamps, assignment, checklists) and a full 1,000-record body.
The behaviour every bulk route shares is in tests/records/test_bulk_upsert.py."""

from __future__ import annotations

from typing import Any

import httpx

from plumbline.kit.ids import new_id
from tests.factories import (
    World,
    audit_entries,
    create_api_key,
    external,
    key_headers,
)
from tests.issue.helpers import create_issue, issues_url, notifications


def _url(world: World) -> str:
    return f"{issues_url(world.project.id)}/bulk"


async def _bulk(
    client: httpx.AsyncClient, world: World, records: list[dict[str, Any]], headers: Any
) -> httpx.Response:
    return await client.post(_url(world), json={"records": records}, headers=headers)


def _results(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


async def test_api_keys_need_issues_write(client: httpx.AsyncClient, world: World) -> None:
    key = f"K-{new_id()}"
    reader, _ = await create_api_key(world.project, ["issues:read"])
    refused = await _bulk(client, world, [{"externalId": key, "title": "A"}], key_headers(reader))
    assert refused.status_code == 403
    assert refused.json() == {
        "error": "API key missing scope: issues:write",
        "code": "API_KEY_SCOPE",
    }
    writer, api_key = await create_api_key(world.project, ["issues:write"])
    [result] = _results(
        await _bulk(client, world, [{"externalId": key, "title": "A"}], key_headers(writer))
    )
    [entry] = await audit_entries(result["id"])
    assert (entry.action, entry.actor_key_id) == ("issue.created", api_key.id)


async def test_clients_cannot_write_and_contractors_keep_their_limits(
    client: httpx.AsyncClient, world: World
) -> None:
    """A contractor creates, updates what is assigned to them and cannot reassign; a key held
    by an issue they cannot see is taken (409), that issue untouched."""
    customer = await external(world, "CLIENT", name="Cli Ent")
    contractor = await external(world, "CONTRACTOR", name="Con Tractor")
    hidden, mine, given, new = (f"K-{new_id()}-{n}" for n in range(4))
    refused = await _bulk(client, world, [{"externalId": new, "title": "A"}], customer.headers)
    assert refused.status_code == 403, refused.text
    await create_issue(client, world.project.id, world.manager.headers, externalId=hidden)
    assigned = await create_issue(
        client,
        world.project.id,
        world.manager.headers,
        externalId=given,
        assigneeId=contractor.id,
    )
    records = [
        {"externalId": hidden, "title": "Mine now"},
        {"externalId": given, "title": assigned["title"], "status": "IN_PROGRESS"},
        {"externalId": mine, "title": "Found a gap", "assigneeId": world.member.id},
        {"externalId": given + "x", "title": "Again"},
    ]
    results = _results(await _bulk(client, world, records, contractor.headers))
    assert [r["status"] for r in results] == ["error", "updated", "created", "created"]
    assert results[0]["error"]["code"] == "CONFLICT"
    reassign = [{"externalId": given, "title": assigned["title"], "assigneeId": None}]
    [result] = _results(await _bulk(client, world, reassign, contractor.headers))
    assert result["error"]["code"] == "FORBIDDEN"
    listed = await client.get(
        issues_url(world.project.id), params={"externalId": hidden}, headers=world.manager.headers
    )
    assert listed.json()[0]["title"] != "Mine now"


async def test_each_record_follows_the_issue_rules(client: httpx.AsyncClient, world: World) -> None:
    """Kinds as on create and PATCH, status stamps, assignment notices, a checklist sent again
    without its ids changes nothing."""
    first, second, occupant = (f"K-{new_id()}-{n}" for n in range(3))
    checklist = [{"label": "Isolate"}, {"label": "Replace", "done": True}]
    records = [
        {"externalId": first, "title": "Valve", "issueKind": "WORK_ORDER", "checklist": checklist},
        {"externalId": second, "title": "Crack"},
        {"externalId": occupant, "title": "Noise", "issueKind": "OCCUPANT"},
    ]
    results = _results(await _bulk(client, world, records, world.manager.headers))
    assert [r["status"] for r in results] == ["created", "created", "error"]
    assert results[2]["error"]["details"] == [
        {
            "field": "issueKind",
            "message": "occupant requests are created through the occupant portal",
        }
    ]
    url = issues_url(world.project.id)
    made = (await client.get(f"{url}/{results[0]['id']}", headers=world.manager.headers)).json()
    assert made["workOrderType"] == "CORRECTIVE"
    assert [(item["label"], item["done"]) for item in made["checklist"]] == [
        ("Isolate", False),
        ("Replace", True),
    ]
    again = _results(await _bulk(client, world, records[:2], world.manager.headers))
    assert [r["status"] for r in again] == ["unchanged", "unchanged"]

    records[1] |= {"status": "RESOLVED", "assigneeId": world.member.id}
    results = _results(await _bulk(client, world, records[:2], world.manager.headers))
    assert [r["status"] for r in results] == ["unchanged", "updated"]
    resolved = (await client.get(f"{url}/{results[1]['id']}", headers=world.manager.headers)).json()
    assert resolved["status"] == "RESOLVED"
    assert resolved["resolvedAt"] == resolved["statusChangedAt"] is not None
    [notice] = await notifications(world.project.id, "ISSUE_ASSIGNED")
    assert notice.user_id == world.member.id
    *_, entry = await audit_entries(results[1]["id"])
    assert set(entry.changes) == {"status", "assigneeId", "statusChangedAt", "resolvedAt"}


async def test_a_thousand_records_in_one_body(client: httpx.AsyncClient, world: World) -> None:
    """1,000 records of about 1.5 kB (a body over the usual 1 MiB limit) in one request."""
    prefix = new_id()
    records = [
        {"externalId": f"{prefix}-{n:04}", "title": f"Issue {n}", "description": "d" * 1500}
        for n in range(1000)
    ]
    response = await _bulk(client, world, records, world.manager.headers)
    assert response.status_code == 200, response.text[:500]
    assert response.json()["created"] == 1000
    listed = await client.get(
        issues_url(world.project.id),
        params={"externalId": f"{prefix}-0999"},
        headers=world.manager.headers,
    )
    [last] = listed.json()
    assert last["title"] == "Issue 999"
