"""Who outside the company reads the schedule (docs/decisions.md): CLIENTs only where the project
shares it (`showSchedule`, off by default, like every client visibility flag); contractors and
subcontractors always, it is the timeline they work to."""

from __future__ import annotations

import pytest

from tests.factories import external
from tests.schedule.test_schedule import put, task, url


def settings_url(world) -> str:
    return f"/api/v1/projects/{world.project.id}/settings"


async def test_a_client_reads_the_schedule_only_where_it_is_shared(client, world):
    assert (await put(client, world, [task("dig")])).status_code == 200
    client_user = await external(world, "CLIENT", name="Cleo Client")

    for path in ("", "/export.csv"):
        hidden = await client.get(url(world.project, path), headers=client_user.headers)
        assert hidden.status_code == 403, path
        assert hidden.json() == {
            "error": "The schedule is not shared with clients on this project",
            "code": "FORBIDDEN",
        }

    shared = await client.patch(
        settings_url(world),
        json={"clientVisibility": {"showSchedule": True}},
        headers=world.manager.headers,
    )
    assert shared.status_code == 200, shared.text
    assert shared.json()["clientVisibility"]["showSchedule"] is True
    session = await client.get(
        f"/api/v1/projects/{world.project.id}/session", headers=client_user.headers
    )
    assert session.json()["clientVisibility"]["showSchedule"] is True

    read = await client.get(url(world.project), headers=client_user.headers)
    assert read.status_code == 200
    assert [t["id"] for t in read.json()["tasks"]] == ["dig"]
    export = await client.get(url(world.project, "/export.csv"), headers=client_user.headers)
    assert export.status_code == 200 and "dig" in export.text
    # Sharing is reading: a client still replaces nothing.
    assert (await put(client, world, [task("x")], client_user.headers)).status_code == 403


@pytest.mark.parametrize("role", ["CONTRACTOR", "SUBCONTRACTOR"])
async def test_contractors_read_the_schedule_whatever_the_flag(client, world, role):
    assert (await put(client, world, [task("dig")])).status_code == 200
    contractor = await external(world, role)
    for flag in (False, True):
        await client.patch(
            settings_url(world),
            json={"clientVisibility": {"showSchedule": flag}},
            headers=world.manager.headers,
        )
        for path in ("", "/export.csv"):
            response = await client.get(url(world.project, path), headers=contractor.headers)
            assert response.status_code == 200, (flag, path)
