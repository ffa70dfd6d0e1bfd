from datetime import UTC, datetime

import pytest

from plumbline.kit import clock
from tests.factories import (
    QueryCounter,
    add_member,
    audit_entries,
    create_api_key,
    create_project,
    create_user,
    key_headers,
    make_world,
    set_client_visibility,
)
from tests.field_report.helpers import insert_reports, url

FULL = {
    "title": "Daily report - pour day",
    "reportDate": "2026-06-03",
    "reportKind": "DAILY",
    "status": "DRAFT",
    "weather": {
        "conditions": "Overcast",
        "highTemp": 21.5,
        "lowTemp": 12,
        "precipitation": "0.1 in",
    },
    "manpower": [
        {"company": "Acme Concrete", "trade": "Concrete", "workers": 12, "hours": 96},
        {"company": "Volt Electric", "trade": "Electrical", "workers": 4, "hours": 30.5},
    ],
    "workPerformed": "Poured level 3 slab.",
    "delays": "Pump truck 40 min late.",
    "safetyNotes": "Toolbox talk on silica.",
    "notes": "Inspector on site at 10:00.",
}


async def create(client, world, body=None, headers=None):
    response = await client.post(
        url(world.project), json=body or FULL, headers=headers or world.member.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_create_get_returns_every_field(client, world):
    clock.set_now(datetime(2026, 6, 3, 18, 0, tzinfo=UTC))
    report = await create(client, world)
    assert report["projectId"] == world.project.id
    assert report["title"] == FULL["title"]
    assert report["createdAt"] == "2026-06-03T18:00:00.000Z"
    assert report["reportDate"] == "2026-06-03"
    assert report["weather"] == FULL["weather"]
    assert report["manpower"] == FULL["manpower"]
    assert report["totalWorkers"] == 16
    assert report["workPerformed"] == FULL["workPerformed"]
    assert report["safetyNotes"] == FULL["safetyNotes"]
    assert report["createdBy"] == world.member.id
    assert report["lastEmailedAt"] is None and report["emailCount"] == 0
    fetched = await client.get(url(world.project, f"/{report['id']}"), headers=world.member.headers)
    assert fetched.status_code == 200 and fetched.json() == report
    [entry] = await audit_entries(report["id"])
    assert entry.action == "field_report.created"
    assert entry.changes["title"] == [None, FULL["title"]]


async def test_defaults_and_report_date_on_the_project_site(client, world):
    clock.set_now(datetime(2026, 3, 10, 3, 0, tzinfo=UTC))
    report = await create(client, world, {"title": "Minimal"})
    assert report["reportDate"] == "2026-03-10"
    assert report["reportKind"] == "DAILY" and report["status"] == "DRAFT"
    assert report["manpower"] == [] and report["totalWorkers"] == 0 and report["weather"] is None

    west = await create_project(world.workspace, name="LA site", timezone="America/Los_Angeles")
    response = await client.post(url(west), json={"title": "Evening"}, headers=world.member.headers)
    assert response.json()["reportDate"] == "2026-03-09"
    dated = await create(client, world, {"title": "x", "reportDate": "2026-02-01T09:00:00Z"})
    assert dated["reportDate"] == "2026-02-01"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"title": "  "},
        {"title": "x", "reportKind": "MONTHLY"},
        {"title": "x", "status": "FINAL"},
        {"title": "x", "reportDate": "soon"},
        {"title": "x", "manpower": [{"company": "A", "workers": -1, "hours": 1}]},
        {"title": "x", "manpower": [{"company": "A", "workers": 2.5, "hours": 1}]},
        {"title": "x", "manpower": [{"company": "A", "workers": "3", "hours": 1}]},
        {"title": "x", "manpower": [{"company": "A", "workers": 3, "hours": -2}]},
        {"title": "x", "manpower": [{"company": "", "workers": 3, "hours": 1}]},
        {"title": "x", "manpower": [{"workers": 3}]},
        {"title": "x", "manpower": {"company": "A"}},
        {"title": "x", "weather": {"highTemp": "hot"}},
    ],
)
async def test_create_validation_writes_nothing(client, world, body):
    response = await client.post(url(world.project), json=body, headers=world.member.headers)
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert (await client.get(url(world.project), headers=world.member.headers)).json() == []


async def test_patch_recomputes_total_and_audits(client, world):
    report = await create(client, world)
    response = await client.patch(
        url(world.project, f"/{report['id']}"),
        json={
            "manpower": [{"company": "Solo", "workers": 3, "hours": 24}],
            "delays": None,
            "status": "SUBMITTED",
        },
        headers=world.member.headers,
    )
    assert response.status_code == 200
    body = response.json()
    assert body["totalWorkers"] == 3
    assert body["manpower"] == [{"company": "Solo", "trade": None, "workers": 3, "hours": 24.0}]
    assert body["delays"] is None and body["status"] == "SUBMITTED"
    assert body["title"] == FULL["title"]
    entry = (await audit_entries(report["id"]))[-1]
    assert entry.action == "field_report.updated"
    assert set(entry.changes) == {"manpower", "delays", "status"}
    assert entry.changes["status"] == ["DRAFT", "SUBMITTED"]


@pytest.mark.parametrize(
    "body",
    [
        {"title": None},
        {"manpower": None},
        {"manpower": [{"company": "A", "workers": -3, "hours": 0}]},
        {"reportKind": "YEARLY"},
    ],
)
async def test_patch_validation_writes_nothing(client, world, body):
    report = await create(client, world)
    response = await client.patch(
        url(world.project, f"/{report['id']}"), json=body, headers=world.member.headers
    )
    assert response.status_code == 400
    fetched = await client.get(url(world.project, f"/{report['id']}"), headers=world.member.headers)
    assert fetched.json() == report


async def test_only_a_manager_returns_a_submitted_report_to_draft(client, world):
    report = await create(client, world, {"title": "x", "status": "SUBMITTED"})
    path = url(world.project, f"/{report['id']}")
    refused = await client.patch(path, json={"status": "DRAFT"}, headers=world.member.headers)
    assert refused.status_code == 403
    ok = await client.patch(path, json={"status": "DRAFT"}, headers=world.manager.headers)
    assert ok.status_code == 200 and ok.json()["status"] == "DRAFT"


async def test_delete_is_soft_and_members_delete_only_their_own(client, world):
    mine = await create(client, world)
    theirs = await create(client, world, headers=world.manager.headers)
    refused = await client.delete(
        url(world.project, f"/{theirs['id']}"), headers=world.member.headers
    )
    assert refused.status_code == 403
    ok = await client.delete(url(world.project, f"/{mine['id']}"), headers=world.member.headers)
    assert ok.status_code == 200 and ok.json() == {"ok": True}
    gone = await client.get(url(world.project, f"/{mine['id']}"), headers=world.member.headers)
    assert gone.status_code == 404
    listed = (await client.get(url(world.project), headers=world.member.headers)).json()
    assert [r["id"] for r in listed] == [theirs["id"]]
    assert (
        await client.delete(url(world.project, f"/{theirs['id']}"), headers=world.manager.headers)
    ).status_code == 200
    assert [e.action for e in await audit_entries(mine["id"])][-1] == "field_report.deleted"


async def test_list_filters_and_pagination(client, world):
    clock.set_now(datetime(2026, 6, 1, 18, tzinfo=UTC))
    monday = await create(client, world, {"title": "Monday", "reportDate": "2026-06-01"})
    clock.set_now(datetime(2026, 6, 5, 18, tzinfo=UTC))
    await create(
        client,
        world,
        {
            "title": "Week 23",
            "reportDate": "2026-06-05",
            "reportKind": "WEEKLY",
            "status": "SUBMITTED",
        },
    )
    await create(
        client, world, {"title": "Tuesday", "reportDate": "2026-06-02", "notes": "Crane 50% down"}
    )

    async def titles(**params):
        response = await client.get(url(world.project), params=params, headers=world.member.headers)
        assert response.status_code == 200, response.text
        return [r["title"] for r in response.json()]

    assert await titles() == ["Tuesday", "Week 23", "Monday"]
    assert await titles(status="SUBMITTED") == ["Week 23"]
    assert await titles(reportKind="DAILY") == ["Tuesday", "Monday"]
    assert await titles(**{"from": "2026-06-02"}) == ["Tuesday", "Week 23"]
    assert await titles(to="2026-06-02") == ["Tuesday", "Monday"]
    assert await titles(**{"from": "2026-06-02", "to": "2026-06-04"}) == ["Tuesday"]
    assert await titles(q="crane 50%") == ["Tuesday"]
    assert await titles(q="week") == ["Week 23"]
    clock.set_now(datetime(2026, 6, 5, 18, 1, tzinfo=UTC))  # past the sync settle window
    # Oldest change first: the two of one instant by id, in the order they were made.
    assert await titles(updatedSince="2026-06-05T00:00:00Z") == ["Week 23", "Tuesday"]
    clock.set_now(datetime(2026, 6, 8, 9, tzinfo=UTC))
    edited = await client.patch(
        f"{url(world.project)}/{monday['id']}", json={"notes": "Late"}, headers=world.member.headers
    )
    assert edited.status_code == 200, edited.text
    clock.set_now(datetime(2026, 6, 8, 9, 1, tzinfo=UTC))
    assert await titles(updatedSince="2026-06-08T09:00:00Z") == ["Monday"]
    page = await client.get(url(world.project), params={"limit": 2}, headers=world.member.headers)
    assert len(page.json()) == 2 and 'rel="next"' in page.headers["link"]
    for bad in (
        {"status": "X"},
        {"reportKind": "X"},
        {"from": "June"},
        {"updatedSince": "yesterday"},
        {"limit": 1001},
    ):
        response = await client.get(url(world.project), params=bad, headers=world.member.headers)
        assert response.status_code == 400


async def test_list_runs_a_fixed_number_of_queries(client, world):
    small = await create_project(world.workspace, name="Small")
    large = await create_project(world.workspace, name="Large")
    await insert_reports(small, 1)
    await insert_reports(large, 500)
    counts = []
    for project, expected in ((small, 1), (large, 500)):
        with QueryCounter() as counter:
            response = await client.get(
                url(project), params={"limit": 1000}, headers=world.member.headers
            )
        assert len(response.json()) == expected
        counts.append(counter.count)
    assert counts[0] == counts[1]
    totals = {r["title"]: r["totalWorkers"] for r in response.json()}
    assert totals["Report 13"] == 13 % 7


async def test_auth_failures(client, world):
    report = await create(client, world)
    assert (await client.get(url(world.project))).status_code == 401
    assert (await client.post(url(world.project), json={"title": "x"})).status_code == 401
    other = await make_world()
    for method, path in (
        ("GET", url(world.project)),
        ("POST", url(world.project)),
        ("GET", url(world.project, f"/{report['id']}")),
        ("PATCH", url(world.project, f"/{report['id']}")),
        ("DELETE", url(world.project, f"/{report['id']}")),
        ("POST", url(world.project, "/send-email")),
    ):
        response = await client.request(
            method,
            path,
            json={"title": "x", "reportId": report["id"], "recipients": ["a@example.com"]},
            headers=other.owner.headers,
        )
        assert response.status_code == 404, (method, path)
    response = await client.get(url(other.project, f"/{report['id']}"), headers=other.owner.headers)
    assert response.status_code == 404


async def test_api_key_scopes(client, world):
    raw, key = await create_api_key(world.project, ["field-reports:write"])
    created = await client.post(
        url(world.project), json={"title": "By key"}, headers=key_headers(raw)
    )
    assert created.status_code == 200
    assert (await audit_entries(created.json()["id"]))[0].actor_key_id == key.id
    refused = await client.get(url(world.project), headers=key_headers(raw))
    assert refused.json()["error"] == "API key missing scope: field-reports:read"
    reader, _ = await create_api_key(world.project, ["field-reports:read", "punch:write"])
    refused = await client.post(
        url(world.project), json={"title": "x"}, headers=key_headers(reader)
    )
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: field-reports:write"
    assert (await client.get(url(world.project), headers=key_headers(reader))).status_code == 200


async def test_externals(client, world):
    report = await create(client, world)
    contractor, customer = await create_user(), await create_user()
    await add_member(
        world.workspace, contractor, external_role="CONTRACTOR", project_ids=[world.project.id]
    )
    await add_member(
        world.workspace, customer, external_role="CLIENT", project_ids=[world.project.id]
    )

    assert (await client.get(url(world.project), headers=contractor.headers)).status_code == 200
    for headers in (contractor.headers, customer.headers):
        assert (
            await client.post(url(world.project), json={"title": "x"}, headers=headers)
        ).status_code == 403
        assert (
            await client.patch(
                url(world.project, f"/{report['id']}"), json={"title": "y"}, headers=headers
            )
        ).status_code == 403

    hidden = await client.get(url(world.project), headers=customer.headers)
    assert hidden.status_code == 403
    assert hidden.json()["error"] == "Field reports are not shared with clients on this project"
    assert (  # a report they cannot see, like any other
        await client.get(url(world.project, f"/{report['id']}"), headers=customer.headers)
    ).status_code == 404
    await set_client_visibility(world.project, showFieldReports=True)
    shown = await client.get(url(world.project), headers=customer.headers)
    assert [r["id"] for r in shown.json()] == [report["id"]]


async def test_disabled_module(client, world):
    project = await create_project(world.workspace, name="Off", modules={"fieldReports": False})
    response = await client.get(url(project), headers=world.member.headers)
    assert response.status_code == 403
    assert response.json()["error"] == "Field reports is disabled for this project"
