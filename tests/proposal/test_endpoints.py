from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Project, Proposal
from tests.factories import (
    QueryCounter,
    create_api_key,
    external,
    key_headers,
    make_world,
    set_project,
    set_workspace,
)

VALID = "2026-12-31T17:00:00Z"


def url(project: Project, suffix: str = "") -> str:
    return f"/api/v1/projects/{project.id}/proposals{suffix}"


def item(quantity: Any, rate: Any, name: str = "Drywall") -> dict[str, Any]:
    return {"name": name, "quantity": quantity, "unit": "m2", "rate": rate}


async def create(client, world, headers=None, **body):  # type: ignore[no-untyped-def]
    payload = {"title": "Level 3 fit-out", "validUntil": VALID} | body
    response = await client.post(
        url(world.project), json=payload, headers=headers or world.member.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


async def proposal_count(project: Project) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(Proposal.project_id == project.id)
        return int((await db.execute(query)).scalar_one())


async def set_status(proposal_id: str, status: str) -> None:
    async with database.sessionmaker() as db:
        row = await db.get(Proposal, proposal_id)
        assert row is not None
        row.status = status
        await db.commit()


async def test_create_answers_a_draft_at_zero_with_a_reference(client, world):
    clock.set_now(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))
    body = await create(client, world, clientName="Dana Client", clientEmail="dana@example.com")
    assert body["status"] == "DRAFT"
    assert body["total"] == "0.00"
    assert body["subtotal"] == "0.00"
    assert body["items"] == []
    assert body["reference"] == "PROP-2026-001"
    assert body["currency"] == "USD"
    assert body["validUntil"] == "2026-12-31T17:00:00.000Z"
    assert body["clientName"] == "Dana Client"
    assert body["createdBy"] == world.member.user.id
    second = await create(client, world)
    assert second["reference"] == "PROP-2026-002"
    fetched = await client.get(url(world.project, f"/{body['id']}"), headers=world.member.headers)
    assert fetched.json() == body


async def test_references_are_never_reused(client, world):
    first = await create(client, world)
    deleted = await client.delete(
        url(world.project, f"/{first['id']}"), headers=world.member.headers
    )
    assert deleted.status_code == 200
    second = await create(client, world)
    assert second["reference"].endswith("-002")


async def test_currency_comes_from_the_project(client, world):
    await set_project(world.project.id, currency="EUR")
    assert (await create(client, world))["currency"] == "EUR"


async def test_totals_round_half_up_at_each_step(client, world):
    body = await create(
        client,
        world,
        items=[item("33.3333", "3"), item(1, "0.005"), item("0.5", 0.01)],
        workPricePercent="10",
        taxPercent=7.125,
        discount="1.00",
    )
    # 99.9999 -> 100.00; 0.005 -> 0.01; 0.005 -> 0.01
    assert [line["lineTotal"] for line in body["items"]] == ["100.00", "0.01", "0.01"]
    assert body["items"][0]["quantity"] == "33.3333"
    assert body["subtotal"] == "100.02"
    assert body["workAmount"] == "10.00"  # 10.002
    assert body["taxAmount"] == "7.84"  # 110.02 * 7.125% = 7.8389...
    assert body["total"] == "116.86"
    assert body["taxPercent"] == "7.125"
    fetched = await client.get(url(world.project, f"/{body['id']}"), headers=world.member.headers)
    assert fetched.json() == body


async def test_a_discount_beyond_the_total_gives_zero(client, world):
    body = await create(client, world, items=[item(2, "10.50")], discount=500)
    assert body["subtotal"] == "21.00"
    assert body["discount"] == "500.00"
    assert body["total"] == "0.00"


async def test_patch_replaces_the_items_and_recomputes(client, world):
    body = await create(client, world, items=[item(1, 10), item(2, 20)])
    assert body["total"] == "50.00"
    response = await client.patch(
        url(world.project, f"/{body['id']}"),
        json={"items": [item(3, "1.10", name="Paint")]},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    patched = response.json()
    assert [line["name"] for line in patched["items"]] == ["Paint"]
    assert patched["total"] == "3.30"
    response = await client.patch(
        url(world.project, f"/{body['id']}"), json={"taxPercent": 10}, headers=world.member.headers
    )
    assert response.json()["total"] == "3.63"
    assert response.json()["items"] == patched["items"]


@pytest.mark.parametrize("status", ["SENT", "VIEWED", "ACCEPTED", "DECLINED", "EXPIRED"])
async def test_edits_refused_outside_draft_and_changes_requested(client, world, status):
    body = await create(client, world)
    await set_status(body["id"], status)
    response = await client.patch(
        url(world.project, f"/{body['id']}"), json={"title": "New"}, headers=world.member.headers
    )
    assert response.status_code == 409
    assert response.json()["code"] == "INVALID_TRANSITION"


async def test_edits_allowed_when_changes_were_requested(client, world):
    body = await create(client, world)
    await set_status(body["id"], "CHANGES_REQUESTED")
    response = await client.patch(
        url(world.project, f"/{body['id']}"), json={"title": "New"}, headers=world.member.headers
    )
    assert response.status_code == 200
    assert response.json()["title"] == "New"


async def test_status_is_not_patchable(client, world):
    body = await create(client, world)
    response = await client.patch(
        url(world.project, f"/{body['id']}"),
        json={"status": "ACCEPTED"},
        headers=world.member.headers,
    )
    assert response.json()["status"] == "DRAFT"


BAD = [
    ({"items": [item(-1, 10)]}, "items.0.quantity"),
    ({"items": [item(1, "-0.01")]}, "items.0.rate"),
    ({"items": [item("1.00001", 1)]}, "items.0.quantity"),
    ({"taxPercent": 101}, "taxPercent"),
    ({"workPricePercent": -1}, "workPricePercent"),
    ({"workPricePercent": "100.0001"}, "workPricePercent"),
    ({"taxPercent": "-0.01"}, "taxPercent"),
    ({"discount": -1}, "discount"),
    ({"coverLetter": "Dear {{ client.name"}, "coverLetter"),
    ({"discount": "1000000000000"}, "discount"),
    ({"items": [item("1000000000000", 1)]}, "items.0.quantity"),
    ({"items": [item("999999999999", "999999999999")]}, "items.0.lineTotal"),
    ({"items": [item(1, "999999999999")] * 2}, "items"),
    ({"items": [item(1, 1)] * 501}, "items"),
    ({"items": [item("NaN", 1)]}, "items.0.quantity"),
    ({"validUntil": "tomorrow"}, "validUntil"),
]


@pytest.mark.parametrize(("extra", "field"), BAD)
async def test_bad_input_is_refused_and_nothing_written(client, world, extra, field):
    response = await client.post(
        url(world.project),
        json={"title": "Bad", "validUntil": VALID} | extra,
        headers=world.member.headers,
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert field in [detail["field"] for detail in response.json()["details"]]
    assert await proposal_count(world.project) == 0


@pytest.mark.parametrize(("extra", "field"), BAD)
async def test_bad_patch_is_refused_and_nothing_changes(client, world, extra, field):
    body = await create(client, world, items=[item(1, 1)])
    response = await client.patch(
        url(world.project, f"/{body['id']}"), json=extra, headers=world.member.headers
    )
    assert response.status_code == 400, response.text
    assert field in [detail["field"] for detail in response.json()["details"]]
    fetched = await client.get(url(world.project, f"/{body['id']}"), headers=world.member.headers)
    assert fetched.json() == body


async def test_text_is_stored_as_given(client, world):
    letter = "<script>alert(1)</script> & co"
    body = await create(client, world, coverLetter=letter, title="<b>Bold</b>")
    assert body["coverLetter"] == letter
    assert body["title"] == "<b>Bold</b>"


async def test_keys_need_the_proposal_scopes(client, world):
    body = await create(client, world)
    reader, _ = await create_api_key(world.project, ["proposals:read"])
    listed = await client.get(url(world.project), headers=key_headers(reader))
    assert listed.status_code == 200
    refused = await client.post(
        url(world.project),
        json={"title": "By key", "validUntil": VALID},
        headers=key_headers(reader),
    )
    assert refused.status_code == 403
    assert refused.json()["code"] == "API_KEY_SCOPE"
    other, _ = await create_api_key(world.project, ["issues:read", "issues:write"])
    refused = await client.get(url(world.project, f"/{body['id']}"), headers=key_headers(other))
    assert refused.status_code == 403
    assert refused.json()["code"] == "API_KEY_SCOPE"
    assert await proposal_count(world.project) == 1


async def test_module_off_refuses(client, world):
    await set_project(world.project.id, modules={"proposals": False})
    response = await client.get(url(world.project), headers=world.manager.headers)
    assert response.status_code == 403
    assert response.json()["code"] == "MODULE_DISABLED"


async def test_team_plan_needs_pro(client, world, monkeypatch):
    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="team", subscription_status="active")
    response = await client.get(url(world.project), headers=world.manager.headers)
    assert response.status_code == 402
    assert response.json()["code"] == "PLAN_REQUIRED"
    assert response.json()["requiredPlan"] == "pro"


async def test_another_workspace_gets_404(client, world):
    body = await create(client, world)
    other = await make_world()
    response = await client.get(url(world.project, f"/{body['id']}"), headers=other.owner.headers)
    assert response.status_code == 404
    # Nor through its own project: the proposal belongs to another project.
    response = await client.get(url(other.project, f"/{body['id']}"), headers=other.owner.headers)
    assert response.status_code == 404


async def test_clients_see_no_proposals(client, world):
    body = await create(client, world)
    client_user = await external(world, "CLIENT")
    listed = await client.get(url(world.project), headers=client_user.headers)
    assert listed.status_code == 403
    one = await client.get(url(world.project, f"/{body['id']}"), headers=client_user.headers)
    assert one.status_code == 404


async def test_member_deletes_only_own_drafts(client, world):
    managers = await create(client, world, headers=world.manager.headers)
    refused = await client.delete(
        url(world.project, f"/{managers['id']}"), headers=world.member.headers
    )
    assert refused.status_code == 403
    own = await create(client, world)
    await set_status(own["id"], "SENT")
    refused = await client.delete(url(world.project, f"/{own['id']}"), headers=world.member.headers)
    assert refused.status_code == 403
    assert await proposal_count(world.project) == 2
    deleted = await client.delete(
        url(world.project, f"/{managers['id']}"), headers=world.manager.headers
    )
    assert deleted.status_code == 200
    gone = await client.get(url(world.project, f"/{managers['id']}"), headers=world.manager.headers)
    assert gone.status_code == 404


async def insert_proposals(project: Project, count: int) -> None:
    async with database.sessionmaker() as db:
        now = clock.now()
        rows = [
            {
                "id": new_id(),
                "project_id": project.id,
                "workspace_id": project.workspace_id,
                "reference": f"PROP-2026-{n:03}",
                "title": f"Proposal {n}",
                "status": "DRAFT",
                "valid_until": now,
                "currency": "USD",
                "items": [{"id": new_id(), "name": "Item", "lineTotal": "1.00"}],
                "subtotal": 1,
                "work_price_percent": 0,
                "work_amount": 0,
                "tax_percent": 0,
                "tax_amount": 0,
                "discount": 0,
                "total": 1,
                "created_at": now,
                "updated_at": now,
            }
            for n in range(count)
        ]
        await db.execute(Proposal.__table__.insert(), rows)
        await db.commit()


async def test_list_runs_the_same_queries_for_1_and_500(client):
    counts = []
    for size in (1, 500):
        world = await make_world()
        await insert_proposals(world.project, size)
        with QueryCounter() as counter:
            response = await client.get(
                url(world.project, "?limit=500"), headers=world.member.headers
            )
        assert response.status_code == 200, response.text
        assert len(response.json()) == size
        assert response.json()[0]["total"] == "1.00"
        counts.append(counter.count)
    assert counts[0] == counts[1]
