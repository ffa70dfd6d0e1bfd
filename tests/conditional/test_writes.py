"""If-Match on the other writes through HTTP: the schedule PUT, a write whose path has no
single-resource GET (no entity tag), and a POST."""

from __future__ import annotations

import httpx

from tests.factories import World
from tests.issue.helpers import create_issue, issues_url


def _task(task_id: str) -> dict[str, str]:
    return {
        "id": task_id,
        "name": f"Task {task_id}",
        "startDate": "2027-03-01T08:00:00Z",
        "endDate": "2027-03-02T08:00:00Z",
    }


async def test_a_stale_schedule_put_is_412_and_replaces_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    url = f"/api/v1/projects/{world.project.id}/schedule"
    headers = world.manager.headers
    empty = await client.get(url, headers=headers)
    tag = empty.headers["etag"]
    first = await client.put(
        url, json={"tasks": [_task("dig")]}, headers={**headers, "If-Match": tag}
    )
    assert first.status_code == 200 and first.json()["version"] == 1
    assert "etag" not in first.headers  # a PUT's answer carries none (RFC 9110 §9.3.4)
    stale = await client.put(
        url, json={"tasks": [_task("pour")]}, headers={**headers, "If-Match": tag}
    )
    assert stale.status_code == 412 and stale.json()["code"] == "PRECONDITION_FAILED"
    read_back = await client.get(url, headers=headers)
    assert read_back.json() == first.json()
    assert [t["id"] for t in read_back.json()["tasks"]] == ["dig"]
    current = {**headers, "If-Match": read_back.headers["etag"]}
    second = await client.put(url, json={"tasks": [_task("pour")]}, headers=current)
    assert second.status_code == 200 and second.json()["version"] == 2


async def test_a_path_without_a_single_resource_get_has_no_tag(
    client: httpx.AsyncClient, world: World
) -> None:
    """Materials have no GET of one material: ``If-Match`` cannot hold there (412, nothing
    written), ``If-None-Match`` always does."""
    materials = f"/api/v1/workspaces/{world.workspace.id}/materials"
    created = await client.post(
        materials, json={"name": "Plasterboard", "unit": "sheet"}, headers=world.manager.headers
    )
    url = f"{materials}/{created.json()['id']}"
    for held in ("*", '"anything"'):
        refused = await client.patch(
            url, json={"name": "Changed"}, headers={**world.manager.headers, "If-Match": held}
        )
        assert refused.status_code == 412, refused.text
        assert refused.json()["code"] == "PRECONDITION_FAILED"
        assert "no entity tag" in refused.json()["error"]
    listed = await client.get(materials, headers=world.manager.headers)
    assert [m["name"] for m in listed.json() if m["id"] == created.json()["id"]] == ["Plasterboard"]
    assert "etag" not in listed.headers  # lists carry no tag
    allowed = await client.patch(
        url, json={"name": "Changed"}, headers={**world.manager.headers, "If-None-Match": "*"}
    )
    assert allowed.status_code == 200 and allowed.json()["name"] == "Changed"


async def test_if_match_on_a_post_fails_and_creates_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    comments = f"{issues_url(world.project.id)}/{issue['id']}/comments"
    refused = await client.post(
        comments, json={"body": "Hello"}, headers={**world.member.headers, "If-Match": "*"}
    )
    assert refused.status_code == 412
    assert (await client.get(comments, headers=world.member.headers)).json() == []
