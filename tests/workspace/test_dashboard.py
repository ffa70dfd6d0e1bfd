from datetime import datetime, timedelta

from plumbline.kit import clock
from plumbline.workspace.schemas import WorkspaceDashboard
from tests.dashboard.helpers import add_record
from tests.factories import QueryCounter, add_member, create_project, create_user, make_world
from tests.member.helpers import ws_url


def _now() -> datetime:
    """Today 15:30 UTC (sessions made by the factories are valid around the real date)."""
    return clock.now().replace(hour=15, minute=30, second=0, microsecond=0)


async def _patch(client, world, name: str, at: datetime) -> None:
    clock.set_now(at)
    response = await client.patch(
        ws_url(world.workspace.id), json={"name": name}, headers=world.admin.headers
    )
    assert response.status_code == 200


async def test_dashboard_counts_projects_members_storage_and_activity(client, world):
    NOW = _now()
    await create_project(world.workspace, name="B", stage="Execution")
    await create_project(world.workspace, name="C", stage="Execution")
    await create_project(world.workspace, name="Gone", deleted_at=clock.now())
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CLIENT", project_ids=[world.project.id]
    )
    # 1 day outside the window, 1 on its first day, 2 today (one just before midnight)
    await _patch(client, world, "a", NOW - timedelta(days=14))
    await _patch(client, world, "b", NOW.replace(hour=0, minute=0) - timedelta(days=13))
    await _patch(client, world, "c", NOW.replace(hour=0, minute=0))
    await _patch(client, world, "d", NOW)
    clock.set_now(NOW)

    response = await client.get(
        ws_url(world.workspace.id, "/dashboard"), headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["projects"] == {"total": 3, "byStage": {"Planning": 1, "Execution": 2}}
    assert body["members"] == {"total": 5, "internal": 4, "external": 1}
    assert body["storage"] == {"usedBytes": 0, "quotaBytes": None}
    assert body["issues"] == {"byStatus": {"OPEN": 0, "IN_PROGRESS": 0, "RESOLVED": 0, "CLOSED": 0}}
    activity = body["activity"]
    assert len(activity) == 14
    assert activity[0] == {"day": (NOW - timedelta(days=13)).date().isoformat(), "count": 1}
    assert activity[-1] == {"day": NOW.date().isoformat(), "count": 2}
    assert sum(day["count"] for day in activity) == 3


async def test_dashboard_runs_a_fixed_number_of_queries(client, world):
    NOW = _now()
    url = ws_url(world.workspace.id, "/dashboard")
    with QueryCounter() as few:
        assert (await client.get(url, headers=world.owner.headers)).status_code == 200
    for i in range(6):
        project = await create_project(
            world.workspace, name=f"P{i}", stage=["Planning", "Closeout"][i % 2]
        )
        await add_record("issue", project, ["OPEN", "CLOSED"][i % 2])
        await add_member(world.workspace, await create_user())
        await _patch(client, world, f"n{i}", NOW - timedelta(days=i))
    clock.set_now(NOW)
    with QueryCounter() as many:
        response = await client.get(url, headers=world.owner.headers)
    assert response.status_code == 200
    assert response.json()["issues"]["byStatus"]["CLOSED"] == 3
    assert few.count == many.count <= 6


async def test_dashboard_refusals(client, world):
    url = ws_url(world.workspace.id, "/dashboard")
    external = await create_user()
    await add_member(
        world.workspace, external, external_role="CONTRACTOR", project_ids=[world.project.id]
    )
    assert (await client.get(url, headers=external.headers)).status_code == 403
    stranger = await create_user()
    assert (await client.get(url, headers=stranger.headers)).status_code == 404
    assert (await client.get(url)).status_code == 401


async def test_dashboard_counts_issues_by_status(client, world):
    url = ws_url(world.workspace.id, "/dashboard")
    second = await create_project(world.workspace, name="Second")
    gone = await create_project(world.workspace, name="Gone", deleted_at=clock.now())
    for status in ("OPEN", "OPEN", "IN_PROGRESS", "RESOLVED"):
        await add_record("issue", world.project, status)
    await add_record("issue", world.project, "OPEN", issue_kind="WORK_ORDER")
    await add_record("issue", world.project, "CLOSED", deleted=True)
    await add_record("issue", second, "CLOSED")
    await add_record("issue", second, "IN_PROGRESS", issue_kind="OCCUPANT")
    await add_record("issue", gone, "OPEN")
    await add_record("rfi", world.project, "OPEN")
    await add_record("punch", second, "OPEN")
    other = await make_world()
    await add_record("issue", other.project, "OPEN")
    created = await client.post(
        f"/api/v1/projects/{second.id}/issues",
        json={"title": "Through the API", "status": "RESOLVED"},
        headers=world.member.headers,
    )
    assert created.status_code == 200, created.text

    response = await client.get(url, headers=world.member.headers)
    assert response.status_code == 200, response.text
    WorkspaceDashboard.model_validate(response.json())
    assert response.json()["issues"] == {
        "byStatus": {"OPEN": 3, "IN_PROGRESS": 2, "RESOLVED": 2, "CLOSED": 1}
    }
    response = await client.get(
        ws_url(other.workspace.id, "/dashboard"), headers=other.owner.headers
    )
    assert response.json()["issues"]["byStatus"]["OPEN"] == 1
