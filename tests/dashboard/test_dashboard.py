"""The project dashboard: team, files, issue/RFI/punch counts and due dates, recent activity."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from plumbline.dashboard.schemas import ProjectDashboardRead
from plumbline.kit import clock
from tests.audit.helpers import add_entries
from tests.dashboard.helpers import add_file, add_record
from tests.factories import (
    QueryCounter,
    add_member,
    create_api_key,
    create_project,
    create_user,
    key_headers,
    make_world,
)


def dashboard_url(project_id: str) -> str:
    return f"/api/v1/projects/{project_id}/dashboard"


def _noon() -> datetime:
    """Today 12:00 UTC (sessions made by the factories are valid around the real date)."""
    return clock.now().replace(hour=12, minute=0, second=0, microsecond=0)


def _day(value: date | None) -> str | None:
    return value.isoformat() if value else None


async def _post(client: Any, url: str, headers: dict[str, str], body: dict[str, Any]) -> str:
    response = await client.post(url, json=body, headers=headers)
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


async def _issue(client, world, status: str, due: date | None, kind: str = "CONSTRUCTION") -> str:
    body = {"title": f"{kind} {status}", "status": status, "issueKind": kind, "dueDate": _day(due)}
    url = f"/api/v1/projects/{world.project.id}/issues"
    return await _post(client, url, world.member.headers, body)


EMPTY = {
    "issues": {
        "byStatus": {"OPEN": 0, "IN_PROGRESS": 0, "RESOLVED": 0, "CLOSED": 0},
        "openWorkOrders": 0,
        "overdue": 0,
        "dueIn7Days": 0,
    },
    "rfis": {
        "byStatus": {"OPEN": 0, "IN_REVIEW": 0, "ANSWERED": 0, "CLOSED": 0},
        "overdue": 0,
        "dueIn7Days": 0,
    },
    "punch": {
        "byStatus": {"OPEN": 0, "IN_PROGRESS": 0, "READY_FOR_REVIEW": 0, "CLOSED": 0},
        "overdue": 0,
        "dueIn7Days": 0,
    },
}


async def test_dashboard_sums_up_the_project(client, world):
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CLIENT", project_ids=[world.project.id]
    )
    await add_file(world.project, [1000, 2500])
    await add_file(world.project, [700, 300], deleted_versions=1)
    await add_file(world.project, [99999], deleted=True)
    elsewhere = await create_project(world.workspace, name="Elsewhere")
    await add_file(elsewhere, [5555])
    ids = await add_entries(world.project.id, world.workspace.id, 25)

    response = await client.get(dashboard_url(world.project.id), headers=world.member.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["project"] == {"id": world.project.id, "name": "Tower A", "stage": "Planning"}
    assert body["members"] == 5  # four internal members and the named client
    assert body["files"] == {"count": 2, "storageBytes": 1000 + 2500 + 300}
    assert [e["id"] for e in body["activity"]] == ids[::-1][:20]
    assert body["activity"][0]["changes"] == {"n": [23, 24]}


async def test_dashboard_of_an_empty_project(client, world):
    response = await client.get(dashboard_url(world.project.id), headers=world.member.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["files"] == {"count": 0, "storageBytes": 0}
    assert body["activity"] == []
    assert body["members"] == 4
    assert {key: body[key] for key in EMPTY} == EMPTY
    assert body["overdueItems"] == 0
    assert body["itemsDueIn7Days"] == 0


async def _seed_records(client, world) -> date:
    """Issues, RFIs and punch items around today; returns today. The comments say what each
    one counts towards today."""
    clock.set_now(_noon())
    t = clock.today()

    def d(days: int) -> date:
        return t + timedelta(days=days)

    await _issue(client, world, "OPEN", d(-1))  # overdue
    await _issue(client, world, "IN_PROGRESS", d(-10))  # overdue
    await _issue(client, world, "RESOLVED", d(-3))
    await _issue(client, world, "CLOSED", d(2))
    await _issue(client, world, "OPEN", t)  # due soon (today)
    await _issue(client, world, "OPEN", d(7))  # due soon (last day of the window)
    await _issue(client, world, "IN_PROGRESS", d(8))  # one day past the window
    await _issue(client, world, "OPEN", None)
    await _issue(client, world, "OPEN", d(1), "WORK_ORDER")  # due soon, open work order
    await _issue(client, world, "IN_PROGRESS", d(-1), "WORK_ORDER")  # overdue, open work order
    await _issue(client, world, "CLOSED", d(-1), "WORK_ORDER")
    await _issue(client, world, "RESOLVED", None, "WORK_ORDER")
    await add_record("issue", world.project, "OPEN", d(-1), deleted=True)
    await add_record("issue", world.project, "OPEN", d(1), issue_kind="WORK_ORDER", deleted=True)

    rfi_url = f"/api/v1/projects/{world.project.id}/rfi"
    await _post(client, rfi_url, world.member.headers, {"title": "Q", "dueDate": _day(d(3))})
    await add_record("rfi", world.project, "IN_REVIEW", d(-2))  # overdue
    await add_record("rfi", world.project, "ANSWERED", d(-5))  # answered: not overdue
    await add_record("rfi", world.project, "ANSWERED", d(1))
    await add_record("rfi", world.project, "CLOSED", d(-1))
    await add_record("rfi", world.project, "OPEN", d(7))  # due soon
    await add_record("rfi", world.project, "OPEN", d(-1), deleted=True)

    punch_url = f"/api/v1/projects/{world.project.id}/punch"
    await _post(client, punch_url, world.member.headers, {"title": "P", "dueDate": _day(d(-1))})
    await add_record("punch", world.project, "IN_PROGRESS", t)  # due soon
    await add_record("punch", world.project, "READY_FOR_REVIEW", d(-4))  # overdue
    await add_record("punch", world.project, "CLOSED", d(-4))
    await add_record("punch", world.project, "OPEN", d(8))
    await add_record("punch", world.project, "OPEN", d(5))  # due soon
    await add_record("punch", world.project, "READY_FOR_REVIEW", d(-4), deleted=True)

    elsewhere = await create_project(world.workspace, name="Elsewhere")
    await add_record("issue", elsewhere, "OPEN", d(-1), issue_kind="WORK_ORDER")
    await add_record("rfi", elsewhere, "IN_REVIEW", d(-2))
    await add_record("punch", elsewhere, "OPEN", d(1))
    return t


async def test_record_counts_overdue_and_due_soon(client, world):
    await _seed_records(client, world)
    response = await client.get(dashboard_url(world.project.id), headers=world.member.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["issues"] == {
        "byStatus": {"OPEN": 5, "IN_PROGRESS": 3, "RESOLVED": 2, "CLOSED": 2},
        "openWorkOrders": 2,
        "overdue": 3,
        "dueIn7Days": 3,
    }
    assert body["rfis"] == {
        "byStatus": {"OPEN": 2, "IN_REVIEW": 1, "ANSWERED": 2, "CLOSED": 1},
        "overdue": 1,
        "dueIn7Days": 2,
    }
    assert body["punch"] == {
        "byStatus": {"OPEN": 3, "IN_PROGRESS": 1, "READY_FOR_REVIEW": 1, "CLOSED": 1},
        "overdue": 2,
        "dueIn7Days": 2,
    }
    ProjectDashboardRead.model_validate(body)  # the shape declared in the OpenAPI
    assert body["overdueItems"] == 3 + 1 + 2
    assert body["itemsDueIn7Days"] == 3 + 2 + 2
    # the 14 records created through the API, newest first
    assert len(body["activity"]) == 14
    assert body["activity"][0]["action"] == "punch.created"

    # A day later what was due today is overdue, and the window reaches one day further.
    clock.set_now(_noon() + timedelta(days=1))
    body = (await client.get(dashboard_url(world.project.id), headers=world.member.headers)).json()
    assert (body["issues"]["overdue"], body["issues"]["dueIn7Days"]) == (4, 3)
    assert (body["rfis"]["overdue"], body["rfis"]["dueIn7Days"]) == (1, 2)
    assert (body["punch"]["overdue"], body["punch"]["dueIn7Days"]) == (3, 2)
    assert (body["overdueItems"], body["itemsDueIn7Days"]) == (8, 7)


async def test_day_boundary_is_utc_midnight(client, world):
    clock.set_now(_noon())
    t = clock.today()
    await add_record("punch", world.project, "OPEN", t)
    url = dashboard_url(world.project.id)
    clock.set_now(datetime.combine(t, time(23, 59, 59), tzinfo=UTC))
    body = (await client.get(url, headers=world.member.headers)).json()
    assert (body["overdueItems"], body["itemsDueIn7Days"]) == (0, 1)
    clock.set_now(datetime.combine(t + timedelta(days=1), time(0), tzinfo=UTC))
    body = (await client.get(url, headers=world.member.headers)).json()
    assert (body["overdueItems"], body["itemsDueIn7Days"]) == (1, 0)


async def test_disabled_modules_have_null_sections(client, world):
    t = await _seed_records(client, world)
    await add_file(world.project, [10])
    switched = await client.patch(
        f"/api/v1/projects/{world.project.id}/settings",
        json={"modules": {"rfi": False, "punch": False, "files": False}},
        headers=world.manager.headers,
    )
    assert switched.status_code == 200, switched.text
    with QueryCounter() as fewer:
        response = await client.get(dashboard_url(world.project.id), headers=world.member.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["rfis"] is None and body["punch"] is None and body["files"] is None
    ProjectDashboardRead.model_validate(body)
    assert body["issues"]["byStatus"]["OPEN"] == 5
    assert (body["overdueItems"], body["itemsDueIn7Days"]) == (3, 3)

    switched = await client.patch(
        f"/api/v1/projects/{world.project.id}/settings",
        json={"modules": {"issues": False, "rfi": True, "punch": True, "files": True}},
        headers=world.manager.headers,
    )
    assert switched.status_code == 200, switched.text
    with QueryCounter() as more:
        body = (
            await client.get(dashboard_url(world.project.id), headers=world.member.headers)
        ).json()
    assert body["issues"] is None
    assert body["files"] == {"count": 1, "storageBytes": 10}
    assert (body["overdueItems"], body["itemsDueIn7Days"]) == (1 + 2, 2 + 2)
    assert clock.today() == t
    # a switched-off section costs no query
    assert more.count == fewer.count + 2


async def test_dashboard_runs_fixed_queries(client, world):
    url = dashboard_url(world.project.id)
    with QueryCounter() as small:
        response = await client.get(url, headers=world.member.headers)
    assert response.status_code == 200
    t = clock.today()
    for n in range(10):
        await add_file(world.project, [10, 20])
        for kind, statuses in (
            ("issue", ("OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED")),
            ("rfi", ("OPEN", "IN_REVIEW", "ANSWERED", "CLOSED")),
            ("punch", ("OPEN", "IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED")),
        ):
            await add_record(kind, world.project, statuses[n % 4], t + timedelta(days=n - 5))
    await add_entries(world.project.id, world.workspace.id, 40)
    for n in range(5):
        await add_member(world.workspace, await create_user(name=f"M{n}"), "MEMBER")
    with QueryCounter() as large:
        response = await client.get(url, headers=world.member.headers)
    body = response.json()
    assert body["files"]["count"] == 10
    assert sum(body["issues"]["byStatus"].values()) == 10
    assert sum(body["punch"]["byStatus"].values()) == 10
    assert large.count == small.count <= 8


async def test_dashboard_access(client, world):
    url = dashboard_url(world.project.id)
    assert (await client.get(url)).status_code == 401
    other = await make_world()
    assert (await client.get(url, headers=other.owner.headers)).status_code == 404
    restricted = await create_user()
    await add_member(world.workspace, restricted, "MEMBER", project_ids=[])
    assert (await client.get(url, headers=restricted.headers)).status_code == 404
    named = await create_user()
    await add_member(world.workspace, named, "MEMBER", project_ids=[world.project.id])
    assert (await client.get(url, headers=named.headers)).status_code == 200


async def test_api_key_with_project_read_scope(client, world):
    clock.set_now(_noon())
    await add_record("issue", world.project, "OPEN", clock.today() - timedelta(days=1))
    url = dashboard_url(world.project.id)
    with_scope, _ = await create_api_key(world.project, ["project:read"])
    response = await client.get(url, headers=key_headers(with_scope))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["project"]["id"] == world.project.id
    assert body["issues"]["byStatus"]["OPEN"] == 1
    assert body["overdueItems"] == 1
    without, _ = await create_api_key(world.project, ["issues:read"])
    response = await client.get(url, headers=key_headers(without))
    assert response.status_code == 403
    assert response.json()["error"] == "API key missing scope: project:read"
    elsewhere = await create_project(world.workspace, name="Elsewhere")
    other_key, _ = await create_api_key(elsewhere, ["project:read"])
    assert (await client.get(url, headers=key_headers(other_key))).status_code == 403


async def test_external_collaborators_are_refused(client, world):
    url = dashboard_url(world.project.id)
    for role in ("CLIENT", "CONTRACTOR", "SUBCONTRACTOR"):
        external = await create_user()
        await add_member(
            world.workspace, external, external_role=role, project_ids=[world.project.id]
        )
        response = await client.get(url, headers=external.headers)
        assert response.status_code == 403, role
        assert response.json() == {
            "error": "The project dashboard is for workspace members",
            "code": "FORBIDDEN",
        }
    outsider = await create_user()
    await add_member(world.workspace, outsider, external_role="CLIENT", project_ids=[])
    assert (await client.get(url, headers=outsider.headers)).status_code == 404
