"""The project dashboard: team size, files and storage, recent activity, pluggable sections."""

from __future__ import annotations

from typing import Any

from plumbline.authz.project import ProjectContext
from plumbline.dashboard.service import SECTIONS, register_section
from tests.audit.helpers import add_entries
from tests.dashboard.helpers import add_file
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

    response = await client.get(dashboard_url(world.project.id), headers=external.headers)
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


async def test_dashboard_runs_fixed_queries(client, world):
    with QueryCounter() as small:
        response = await client.get(dashboard_url(world.project.id), headers=world.member.headers)
    assert response.status_code == 200
    for _ in range(10):
        await add_file(world.project, [10, 20])
    await add_entries(world.project.id, world.workspace.id, 40)
    for n in range(5):
        await add_member(world.workspace, await create_user(name=f"M{n}"), "MEMBER")
    with QueryCounter() as large:
        response = await client.get(dashboard_url(world.project.id), headers=world.member.headers)
    assert response.json()["files"]["count"] == 10
    assert large.count == small.count


async def test_dashboard_access(client, world):
    url = dashboard_url(world.project.id)
    assert (await client.get(url)).status_code == 401
    other = await make_world()
    assert (await client.get(url, headers=other.owner.headers)).status_code == 404
    with_scope, _ = await create_api_key(world.project, ["project:read"])
    response = await client.get(url, headers=key_headers(with_scope))
    assert response.status_code == 200 and response.json()["project"]["id"] == world.project.id
    without, _ = await create_api_key(world.project, ["issues:read"])
    response = await client.get(url, headers=key_headers(without))
    assert response.status_code == 403
    assert response.json()["error"] == "API key missing scope: project:read"
    restricted = await create_user()
    await add_member(world.workspace, restricted, "MEMBER", project_ids=[])
    assert (await client.get(url, headers=restricted.headers)).status_code == 404


async def test_modules_add_sections_gated_by_their_switch(client, world):
    async def punch_counts(_db: Any, ctx: ProjectContext) -> dict[str, Any]:
        return {"project": ctx.project.id, "open": 0}

    register_section("testPunch", punch_counts, module="punch")
    try:
        url = dashboard_url(world.project.id)
        response = await client.get(url, headers=world.member.headers)
        assert response.json()["testPunch"] == {"project": world.project.id, "open": 0}
        switched = await client.patch(
            f"/api/v1/projects/{world.project.id}/settings",
            json={"modules": {"punch": False}},
            headers=world.manager.headers,
        )
        assert switched.status_code == 200
        response = await client.get(url, headers=world.member.headers)
        assert response.status_code == 200
        assert "testPunch" not in response.json()
    finally:
        SECTIONS.pop("testPunch", None)
