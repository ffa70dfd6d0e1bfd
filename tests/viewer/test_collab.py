"""Live co-viewing through a real socket (uvicorn in this process, so the test clock applies)."""

from datetime import timedelta

from plumbline.config import settings
from plumbline.kit import clock
from plumbline.viewer.events import publish_to_version
from tests.factories import add_member, create_api_key, create_user, key_headers, make_world
from tests.viewer.helpers import EventStream, members, set_presence_hidden


def base(version_id: str) -> str:
    return f"/api/v1/file-versions/{version_id}/viewer-collab"


def events(live, version_id, actor):
    return EventStream(live, f"{base(version_id)}/events", actor.headers)


async def test_two_viewers_see_each_other_and_shared_events(live, world, version):
    async with events(live, version.id, world.member) as a:
        assert a.response.status_code == 200
        assert a.response.headers["content-type"].startswith("text/event-stream")
        assert a.response.headers["cache-control"].startswith("no-cache")
        assert a.response.headers["x-accel-buffering"] == "no"
        hello_a = await a.expect("hello")
        assert hello_a["hostUserId"] == world.member.id
        assert (await a.expect("presence"))["members"] == [
            {"userId": world.member.id, "name": "Mel Member", "pageIndex": None}
        ]
        async with events(live, version.id, world.manager) as b:
            hello_b = await b.expect("hello")
            assert hello_b["hostUserId"] == world.member.id
            assert hello_b["connectionId"] != hello_a["connectionId"]
            both = {world.member.id, world.manager.id}
            seen_b = await b.expect("presence")
            assert members(seen_b) == both and seen_b["hostUserId"] == world.member.id
            await a.expect("presence", lambda p: members(p) == both)

            saved = await live.put(
                f"/api/v1/file-versions/{version.id}/viewer-state",
                json={"viewerState": {"m": 1}, "baseRevision": 0},
                headers=world.manager.headers,
            )
            assert saved.status_code == 200
            for stream in (a, b):
                assert await stream.expect("viewer_state") == {
                    "revision": 1,
                    "actorUserId": world.manager.id,
                }

            locked = await live.post(
                f"/api/v1/files/{version.id}/lock", headers=world.member.headers
            )
            for stream in (a, b):
                assert await stream.expect("lock_changed") == {
                    "lockedBy": world.member.id,
                    "expiresAt": locked.json()["expiresAt"],
                }
            await live.delete(f"/api/v1/files/{version.id}/lock", headers=world.member.headers)
            for stream in (a, b):
                assert await stream.expect("lock_changed") == {"lockedBy": None, "expiresAt": None}

            await publish_to_version(version.id, "issues_changed", {"issueId": "i1"})
            for stream in (a, b):
                assert await stream.expect("issues_changed") == {"issueId": "i1"}

            refused = await live.post(
                f"{base(version.id)}/end-session", headers=world.manager.headers
            )
            assert refused.status_code == 403
            ended = await live.post(f"{base(version.id)}/end-session", headers=world.member.headers)
            assert ended.status_code == 200 and ended.json() == {"ok": True}
            for stream in (a, b):
                await stream.expect("session_ended")
                assert await stream.until_closed() == []


async def test_heartbeat_shares_the_page_and_checks_the_connection(live, world, version):
    async with (
        events(live, version.id, world.member) as a,
        events(live, version.id, world.manager) as b,
    ):
        connection = (await a.expect("hello"))["connectionId"]
        await b.expect("hello")
        await a.expect("presence", lambda p: len(p["members"]) == 2)
        response = await live.post(
            f"{base(version.id)}/heartbeat",
            json={"connectionId": connection, "pageIndex": 3},
            headers=world.member.headers,
        )
        assert response.status_code == 200 and response.json() == {"ok": True}
        presence = await b.expect(
            "presence",
            lambda p: any(
                m["userId"] == world.member.id and m["pageIndex"] == 3 for m in p["members"]
            ),
        )
        assert presence["hostUserId"] == world.member.id

        unknown = await live.post(
            f"{base(version.id)}/heartbeat",
            json={"connectionId": "not-a-connection"},
            headers=world.member.headers,
        )
        assert unknown.status_code == 404
        # someone else's connection id is as unknown as a made-up one
        stolen = await live.post(
            f"{base(version.id)}/heartbeat",
            json={"connectionId": connection},
            headers=world.manager.headers,
        )
        assert stolen.status_code == 404
        invalid = await live.post(
            f"{base(version.id)}/heartbeat",
            json={"connectionId": connection, "pageIndex": -1},
            headers=world.member.headers,
        )
        assert invalid.status_code == 400
        missing = await live.post(
            f"{base(version.id)}/heartbeat", json={}, headers=world.member.headers
        )
        assert missing.status_code == 400


async def test_host_leaving_hands_over_to_the_next_earliest(live, world, version):
    async with (
        events(live, version.id, world.member) as a,
        events(live, version.id, world.manager) as b,
        events(live, version.id, world.admin) as c,
    ):
        connection = (await a.expect("hello"))["connectionId"]
        await b.expect("hello")
        await c.expect("hello")
        await c.expect("presence", lambda p: len(p["members"]) == 3)

        stolen = await live.post(
            f"{base(version.id)}/leave",
            json={"connectionId": connection},
            headers=world.admin.headers,
        )
        assert stolen.status_code == 404
        response = await live.post(
            f"{base(version.id)}/leave",
            json={"connectionId": connection},
            headers=world.member.headers,
        )
        assert response.status_code == 200
        # the left connection's stream ends (after any presence it had not read yet)
        assert set(await a.until_closed()) <= {"presence"}
        after = await c.expect("presence", lambda p: len(p["members"]) == 2)
        assert members(after) == {world.manager.id, world.admin.id}
        assert after["hostUserId"] == world.manager.id
        again = await live.post(
            f"{base(version.id)}/leave",
            json={"connectionId": connection},
            headers=world.member.headers,
        )
        assert again.status_code == 404
        # the new host may end the session
        old = await live.post(f"{base(version.id)}/end-session", headers=world.member.headers)
        assert old.status_code == 403
        new = await live.post(f"{base(version.id)}/end-session", headers=world.manager.headers)
        assert new.status_code == 200
        for stream in (b, c):
            await stream.expect("session_ended")


async def test_disconnect_leaves_presence(live, world, version):
    async with events(live, version.id, world.manager) as b:
        await b.expect("hello")
        async with events(live, version.id, world.member) as a:
            await a.expect("hello")
            await b.expect("presence", lambda p: len(p["members"]) == 2)
        # the client closed its connection: the server notices and cleans up
        after = await b.expect("presence", lambda p: len(p["members"]) == 1)
        assert members(after) == {world.manager.id}
        assert after["hostUserId"] == world.manager.id


async def test_silent_connection_leaves_presence_after_75_seconds(live, world, version):
    start = clock.now()
    clock.set_now(start)
    async with (
        events(live, version.id, world.member) as a,
        events(live, version.id, world.manager) as b,
    ):
        await a.expect("hello")
        connection_b = (await b.expect("hello"))["connectionId"]
        await b.expect("presence", lambda p: len(p["members"]) == 2)
        clock.set_now(start + timedelta(seconds=74))
        await live.post(
            f"{base(version.id)}/heartbeat",
            json={"connectionId": connection_b},
            headers=world.manager.headers,
        )
        clock.set_now(start + timedelta(seconds=76))
        response = await live.post(
            f"{base(version.id)}/heartbeat",
            json={"connectionId": connection_b},
            headers=world.manager.headers,
        )
        assert response.status_code == 200
        after = await b.expect("presence", lambda p: len(p["members"]) == 1)
        assert members(after) == {world.manager.id}
        assert after["hostUserId"] == world.manager.id
        assert set(await a.until_closed()) <= {"presence"}


async def test_hidden_users_are_left_out_of_presence(live, world):
    version = await _version(world)
    hidden = await create_user(name="Quiet Quinn")
    await add_member(world.workspace, hidden, "MEMBER")
    await set_presence_hidden(hidden.id)
    async with events(live, version.id, world.member) as a:
        await a.expect("hello")
        async with events(live, version.id, hidden) as h:
            hello = await h.expect("hello")
            assert hello["hostUserId"] == world.member.id
            assert members(await h.expect("presence")) == {world.member.id}
            connection = hello["connectionId"]
            await live.post(
                f"{base(version.id)}/heartbeat",
                json={"connectionId": connection, "pageIndex": 1},
                headers=hidden.headers,
            )
            saved = await live.put(
                f"/api/v1/file-versions/{version.id}/viewer-state",
                json={"viewerState": {}, "baseRevision": 0},
                headers=hidden.headers,
            )
            assert saved.status_code == 200
            await a.expect("viewer_state")
            assert all(
                members(data) == {world.member.id} for name, data in a.seen if name == "presence"
            )


async def test_connects_are_rate_limited_per_user(live, world):
    version = await _version(world)
    user = await create_user(name="Reloader")
    await add_member(world.workspace, user, "MEMBER")
    for _ in range(24):
        async with events(live, version.id, user) as stream:
            assert stream.response.status_code == 200
            await stream.expect("hello")
    async with events(live, version.id, user) as refused:
        assert refused.response.status_code == 429
        assert refused.response.headers["retry-after"]
    # other users are not affected
    async with events(live, version.id, world.member) as other:
        await other.expect("hello")


async def test_collab_access_failures(client, world, version):
    url = f"{base(version.id)}/events"
    assert (await client.get(url)).status_code == 401
    for path in ("heartbeat", "leave"):
        response = await client.post(f"{base(version.id)}/{path}", json={"connectionId": "x"})
        assert response.status_code == 401
    assert (await client.post(f"{base(version.id)}/end-session")).status_code == 401

    other = await make_world()
    assert (await client.get(url, headers=other.member.headers)).status_code == 404
    for path in ("heartbeat", "leave"):
        response = await client.post(
            f"{base(version.id)}/{path}", json={"connectionId": "x"}, headers=other.member.headers
        )
        assert response.status_code == 404
    ended = await client.post(f"{base(version.id)}/end-session", headers=other.member.headers)
    assert ended.status_code == 404

    raw, _ = await create_api_key(world.project, ["files:read"])
    assert (await client.get(url, headers=key_headers(raw))).status_code == 403
    # nobody is connected: there is no host
    alone = await client.post(f"{base(version.id)}/end-session", headers=world.member.headers)
    assert alone.status_code == 403


async def test_collab_metrics_need_the_cron_secret(client, live, world, version, monkeypatch):
    url = "/api/v1/internal/collab-metrics"
    assert (await client.get(url)).status_code == 401
    assert (await client.get(url, headers={"x-service-cron-secret": "wrong"})).status_code == 401
    async with events(live, version.id, world.member) as a:
        await a.expect("hello")
        response = await client.get(url, headers={"x-service-cron-secret": "test-cron-secret"})
        assert response.status_code == 200
        body = response.json()
        assert body["connectionsOpen"] >= 1 and body["rooms"] >= 1
        assert body["eventsPublished"] >= 1 and body["backend"] == "memory"
        for key in ("heartbeats", "eventsDelivered", "slowConsumersDropped", "presenceSwept"):
            assert isinstance(body[key], int)
    monkeypatch.setattr(settings, "cron_secret", None)
    unset = await client.get(url, headers={"x-service-cron-secret": "test-cron-secret"})
    assert unset.status_code == 503
    assert unset.json()["code"] == "NOT_CONFIGURED"


async def _version(world):
    from tests.viewer.helpers import create_file_version

    return await create_file_version(world.project)
