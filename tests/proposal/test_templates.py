"""Workspace proposal templates (PRODUCT §8) and proposals created from them."""

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import ProposalTemplate, Workspace
from tests.factories import (
    QueryCounter,
    audit_entries,
    create_api_key,
    external,
    key_headers,
    make_world,
    set_workspace,
)
from tests.proposal.test_endpoints import item, proposal_count, url

BODY = "Dear {{client.name}},\n\nPlease find {{proposal.reference}} for {{project.name}}."


def templates(workspace: Workspace, suffix: str = "") -> str:
    return f"/api/v1/workspaces/{workspace.id}/proposal-templates{suffix}"


async def make_template(client, world, **body):  # type: ignore[no-untyped-def]
    payload = {"name": f"Standard {new_id()}", "body": BODY} | body
    response = await client.post(
        templates(world.workspace), json=payload, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


async def template_count(workspace: Workspace) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(ProposalTemplate.workspace_id == workspace.id)
        return int((await db.execute(query)).scalar_one())


async def test_manager_creates_and_members_read(client, world):
    body = await make_template(
        client, world, name="Fit-out", defaults={"taxPercent": "20", "validDays": 30}
    )
    assert body["name"] == "Fit-out"
    assert body["body"] == BODY
    assert body["defaults"] == {"taxPercent": "20.00", "validDays": 30}
    assert body["workspaceId"] == world.workspace.id
    assert body["createdBy"] == world.manager.user.id
    listed = await client.get(templates(world.workspace), headers=world.member.headers)
    assert listed.status_code == 200
    assert listed.json() == [body]
    entries = await audit_entries(body["id"])
    assert [entry.action for entry in entries] == ["proposal_template.created"]


async def test_defaults_are_optional(client, world):
    body = await make_template(client, world)
    assert body["defaults"] == {"taxPercent": None, "validDays": None}


async def test_patch_applies_the_fields_sent(client, world):
    body = await make_template(client, world, defaults={"taxPercent": "20", "validDays": 30})
    response = await client.patch(
        templates(world.workspace, f"/{body['id']}"),
        json={"name": "Renamed", "defaults": {"validDays": 14}},
        headers=world.admin.headers,
    )
    assert response.status_code == 200, response.text
    changed = response.json()
    assert changed["name"] == "Renamed"
    assert changed["body"] == BODY
    assert changed["defaults"] == {"taxPercent": "20.00", "validDays": 14}
    cleared = await client.patch(
        templates(world.workspace, f"/{body['id']}"),
        json={"defaults": {"taxPercent": None}},
        headers=world.manager.headers,
    )
    assert cleared.json()["defaults"] == {"taxPercent": None, "validDays": 14}
    entries = await audit_entries(body["id"])
    assert [entry.action for entry in entries][-2:] == [
        "proposal_template.updated",
        "proposal_template.updated",
    ]
    assert entries[1].changes["name"] == [body["name"], "Renamed"]


async def test_delete_removes_it(client, world):
    body = await make_template(client, world)
    response = await client.delete(
        templates(world.workspace, f"/{body['id']}"), headers=world.manager.headers
    )
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert await template_count(world.workspace) == 0
    again = await client.delete(
        templates(world.workspace, f"/{body['id']}"), headers=world.manager.headers
    )
    assert again.status_code == 404
    entries = await audit_entries(body["id"])
    assert entries[-1].action == "proposal_template.deleted"


async def test_members_and_externals_cannot_write(client, world):
    body = await make_template(client, world)
    payload = {"name": "Mine", "body": "Hello"}
    refused = await client.post(
        templates(world.workspace), json=payload, headers=world.member.headers
    )
    assert refused.status_code == 403
    patch = await client.patch(
        templates(world.workspace, f"/{body['id']}"),
        json={"name": "x"},
        headers=world.member.headers,
    )
    assert patch.status_code == 403
    delete = await client.delete(
        templates(world.workspace, f"/{body['id']}"), headers=world.member.headers
    )
    assert delete.status_code == 403
    outsider = await external(world, "CLIENT")
    read = await client.get(templates(world.workspace), headers=outsider.headers)
    assert read.status_code == 403
    assert await template_count(world.workspace) == 1


async def test_api_keys_never_reach_templates(client, world):
    raw, _ = await create_api_key(world.project, ["proposals:read", "proposals:write"])
    listed = await client.get(templates(world.workspace), headers=key_headers(raw))
    assert listed.status_code == 403
    assert listed.json()["code"] == "API_KEY_PROJECT"
    created = await client.post(
        templates(world.workspace), json={"name": "x", "body": "y"}, headers=key_headers(raw)
    )
    assert created.status_code == 403
    assert await template_count(world.workspace) == 0


async def test_another_workspace_gets_404(client, world):
    body = await make_template(client, world)
    other = await make_world()
    listed = await client.get(templates(world.workspace), headers=other.owner.headers)
    assert listed.status_code == 404
    # Through its own workspace: the template is not there.
    patch = await client.patch(
        templates(other.workspace, f"/{body['id']}"),
        json={"name": "Stolen"},
        headers=other.owner.headers,
    )
    assert patch.status_code == 404
    delete = await client.delete(
        templates(other.workspace, f"/{body['id']}"), headers=other.owner.headers
    )
    assert delete.status_code == 404
    assert await template_count(world.workspace) == 1


async def test_names_are_unique_in_a_workspace(client, world):
    await make_template(client, world, name="Standard")
    response = await client.post(
        templates(world.workspace),
        json={"name": "Standard", "body": "x"},
        headers=world.manager.headers,
    )
    assert response.status_code == 409
    assert response.json()["code"] == "CONFLICT"
    other = await make_template(client, world, name="Other")
    rename = await client.patch(
        templates(world.workspace, f"/{other['id']}"),
        json={"name": "Standard"},
        headers=world.manager.headers,
    )
    assert rename.status_code == 409
    # Another workspace may use the same name.
    elsewhere = await make_world()
    await make_template(client, elsewhere, name="Standard")


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"body": "Dear {{ client.name"}, "body"),
        ({"body": "{% for x in range(9) %}{% endfor %}"}, "body"),
        ({"body": "x" * 20001}, "body"),
        ({"name": ""}, "name"),
        ({"name": "n" * 201}, "name"),
        ({"defaults": {"taxPercent": "100.01"}}, "defaults.taxPercent"),
        ({"defaults": {"taxPercent": -1}}, "defaults.taxPercent"),
        ({"defaults": {"validDays": 0}}, "defaults.validDays"),
        ({"defaults": {"validDays": 3651}}, "defaults.validDays"),
    ],
)
async def test_bad_input_is_refused(client, world, payload, field):
    body = {"name": f"T {new_id()}", "body": "Hello"} | payload
    response = await client.post(
        templates(world.workspace), json=body, headers=world.manager.headers
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert response.json()["details"][0]["field"] == field
    assert await template_count(world.workspace) == 0


async def test_bad_patch_changes_nothing(client, world):
    body = await make_template(client, world)
    response = await client.patch(
        templates(world.workspace, f"/{body['id']}"),
        json={"name": "New", "body": "{% if %}"},
        headers=world.manager.headers,
    )
    assert response.status_code == 400
    again = await client.get(templates(world.workspace), headers=world.member.headers)
    assert again.json() == [body]


async def test_templates_need_the_pro_plan(client, world, monkeypatch):
    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="team", subscription_status="active")
    response = await client.get(templates(world.workspace), headers=world.manager.headers)
    assert response.status_code == 402
    assert response.json()["requiredPlan"] == "pro"


async def test_proposal_takes_the_template_letter_and_defaults(client, world):
    clock.set_now(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))
    template = await make_template(client, world, defaults={"taxPercent": "20", "validDays": 30})
    response = await client.post(
        url(world.project),
        json={"title": "From template", "templateId": template["id"], "items": [item("1", "100")]},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["coverLetter"] == BODY
    assert body["taxPercent"] == "20.00"
    assert body["total"] == "120.00"
    assert body["validUntil"] == "2026-12-23T23:59:59.000Z"
    preview = await client.post(
        url(world.project, f"/{body['id']}/preview"), headers=world.member.headers
    )
    assert f"Please find {body['reference']} for {world.project.name}." in preview.text


async def test_the_request_wins_over_the_template(client, world):
    template = await make_template(client, world, defaults={"taxPercent": "20", "validDays": 30})
    body = await _create(
        client,
        world,
        templateId=template["id"],
        coverLetter="My own letter",
        taxPercent="0",
        validUntil="2027-01-15T12:00:00Z",
    )
    assert body["coverLetter"] == "My own letter"
    assert body["taxPercent"] == "0.00"
    assert body["validUntil"] == "2027-01-15T12:00:00.000Z"


async def _create(client: Any, world: Any, **payload: Any) -> dict[str, Any]:
    response = await client.post(
        url(world.project), json={"title": "T"} | payload, headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def test_template_of_another_workspace_is_refused(client, world):
    other = await make_world()
    foreign = await make_template(client, other)
    before = await proposal_count(world.project)
    response = await client.post(
        url(world.project),
        json={"title": "T", "validUntil": "2027-01-01T00:00:00Z", "templateId": foreign["id"]},
        headers=world.member.headers,
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "templateId"
    assert await proposal_count(world.project) == before


async def test_a_template_without_valid_days_leaves_the_default_validity(client, world):
    clock.set_now(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))
    no_days = await make_template(client, world)
    body = await _create(client, world, templateId=no_days["id"])
    # The 30 days of a draft without validUntil (tests/proposal/test_validity.py).
    assert body["validUntil"] == "2026-12-23T23:59:59.000Z"


async def test_list_runs_the_same_queries_for_1_and_many(client):
    counts = []
    for size in (1, 60):
        world = await make_world()
        async with database.sessionmaker() as db:
            now = clock.now()
            db.add_all(
                ProposalTemplate(
                    workspace_id=world.workspace.id,
                    name=f"T{n}",
                    body="Hello",
                    tax_percent=None,
                    valid_days=n + 1,
                    created_at=now,
                    updated_at=now,
                )
                for n in range(size)
            )
            await db.commit()
        with QueryCounter() as counter:
            response = await client.get(templates(world.workspace), headers=world.member.headers)
        assert response.status_code == 200
        assert len(response.json()) == size
        counts.append(counter.count)
    assert counts[0] == counts[1]
