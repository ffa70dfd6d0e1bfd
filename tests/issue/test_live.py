"""``issues_changed`` on the co-viewing channel of the drawing versions an issue is pinned on."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from plumbline.kit import pubsub
from plumbline.viewer.events import channel, publish_to_version
from tests.factories import World
from tests.issue.helpers import create_file, create_issue, issues_url

WAIT = 15  # seconds: a safety bound on every wait, never a timed assertion


async def next_event(subscription: pubsub.Subscription) -> dict[str, Any] | None:
    async with asyncio.timeout(WAIT):
        return await subscription.next()


async def nothing_more(subscription: pubsub.Subscription, version_id: str) -> bool:
    """True when no event is waiting: a marker published now is the next one to arrive
    (a channel keeps its order), so nothing was sent before it."""
    await publish_to_version(version_id, "marker", {})
    return await next_event(subscription) == {"event": "marker", "data": {}}


def changed(issue_id: str, action: str) -> dict[str, Any]:
    return {"event": "issues_changed", "data": {"issueId": issue_id, "action": action}}


async def test_create_patch_and_delete_reach_the_viewers_of_the_version(
    client: httpx.AsyncClient, world: World
) -> None:
    _, version_id = await create_file(world)
    headers = world.member.headers
    async with pubsub.subscribe(channel(version_id)) as viewers:
        issue = await create_issue(
            client, world.project.id, headers, fileVersionId=version_id, pin={"x": 0.1, "y": 0.2}
        )
        assert await next_event(viewers) == changed(issue["id"], "created")

        url = f"{issues_url(world.project.id)}/{issue['id']}"
        for fields in ({"status": "IN_PROGRESS"}, {"pin": {"x": 0.5, "y": 0.5}}, {"title": "T"}):
            response = await client.patch(url, json=fields, headers=headers)
            assert response.status_code == 200, response.text
            assert await next_event(viewers) == changed(issue["id"], "updated"), fields

        unchanged = await client.patch(url, json={"status": "IN_PROGRESS"}, headers=headers)
        assert unchanged.status_code == 200
        assert await nothing_more(viewers, version_id)

        deleted = await client.delete(url, headers=headers)
        assert deleted.status_code == 200
        assert await next_event(viewers) == changed(issue["id"], "deleted")


async def test_moving_an_issue_tells_both_versions(client: httpx.AsyncClient, world: World) -> None:
    _, old_version = await create_file(world)
    new_file, new_version = await create_file(world)
    issue = await create_issue(
        client, world.project.id, world.member.headers, fileVersionId=old_version
    )
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    async with (
        pubsub.subscribe(channel(old_version)) as old_viewers,
        pubsub.subscribe(channel(new_version)) as new_viewers,
    ):
        moved = await client.patch(
            url,
            json={"fileId": new_file, "fileVersionId": new_version},
            headers=world.member.headers,
        )
        assert moved.status_code == 200 and moved.json()["fileVersionId"] == new_version
        assert await next_event(old_viewers) == changed(issue["id"], "updated")
        assert await next_event(new_viewers) == changed(issue["id"], "updated")

        unpinned = await client.patch(
            url, json={"fileId": None, "fileVersionId": None}, headers=world.member.headers
        )
        assert unpinned.status_code == 200 and unpinned.json()["fileVersionId"] is None
        assert await next_event(new_viewers) == changed(issue["id"], "updated")
        assert await nothing_more(old_viewers, old_version)

        await client.delete(url, headers=world.member.headers)
        assert await nothing_more(new_viewers, new_version)


async def test_refused_writes_publish_nothing(client: httpx.AsyncClient, world: World) -> None:
    _, version_id = await create_file(world)
    issue = await create_issue(
        client, world.project.id, world.manager.headers, fileVersionId=version_id
    )
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    async with pubsub.subscribe(channel(version_id)) as viewers:
        refused = await client.delete(url, headers=world.member.headers)
        assert refused.status_code == 403
        invalid = await client.patch(url, json={"status": "DONE"}, headers=world.manager.headers)
        assert invalid.status_code == 400
        bad = await client.post(
            issues_url(world.project.id),
            json={"title": "x", "fileVersionId": version_id, "assigneeId": "nobody"},
            headers=world.manager.headers,
        )
        assert bad.status_code == 400
        assert await nothing_more(viewers, version_id)
