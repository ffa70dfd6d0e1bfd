"""Co-viewing against real server processes: one process (in-process pub/sub), then two
processes sharing a room through Redis."""

from plumbline.kit.ids import new_id
from tests.viewer.helpers import EventStream, live_client, members, server_process


def base(version_id: str) -> str:
    return f"/api/v1/file-versions/{version_id}/viewer-collab"


async def _co_view(url_a: str, url_b: str, world, version) -> None:
    """User A on server A and user B on server B share presence, markups and the session end."""
    both = {world.member.id, world.manager.id}
    events = f"{base(version.id)}/events"
    async with live_client(url_a) as server_a, live_client(url_b) as server_b:
        a = EventStream(server_a, events, world.member.headers)
        b = EventStream(server_b, events, world.manager.headers)
        async with a:
            hello = await a.expect("hello")
            assert hello["hostUserId"] == world.member.id
            async with b:
                assert (await b.expect("hello"))["hostUserId"] == world.member.id
                await b.expect("presence", lambda p: members(p) == both)
                presence = await a.expect("presence", lambda p: members(p) == both)
                assert presence["hostUserId"] == world.member.id

                # a heartbeat may reach any process
                beat = await server_b.post(
                    f"{base(version.id)}/heartbeat",
                    json={"connectionId": hello["connectionId"], "pageIndex": 7},
                    headers=world.member.headers,
                )
                assert beat.status_code == 200
                await b.expect("presence", lambda p: any(m["pageIndex"] == 7 for m in p["members"]))

                saved = await server_a.put(
                    f"/api/v1/file-versions/{version.id}/viewer-state",
                    json={"viewerState": {"markups": [1]}, "baseRevision": 0},
                    headers=world.member.headers,
                )
                assert saved.status_code == 200
                assert await b.expect("viewer_state") == {
                    "revision": 1,
                    "actorUserId": world.member.id,
                }

                ended = await server_b.post(
                    f"{base(version.id)}/end-session", headers=world.member.headers
                )
                assert ended.status_code == 200
                for stream in (a, b):
                    assert (await stream.expect("session_ended"))["endedBy"] == world.member.id
                    assert await stream.until_closed() == []


async def _disconnect_is_seen_across(url_a: str, url_b: str, world, version) -> None:
    events = f"{base(version.id)}/events"
    async with live_client(url_a) as server_a, live_client(url_b) as server_b:
        b = EventStream(server_b, events, world.manager.headers)
        async with b:
            await b.expect("hello")
            async with EventStream(server_a, events, world.member.headers) as a:
                await a.expect("hello")
                await b.expect("presence", lambda p: len(p["members"]) == 2)
            after = await b.expect("presence", lambda p: len(p["members"]) == 1)
            assert members(after) == {world.manager.id}
            assert after["hostUserId"] == world.manager.id


async def test_one_server_process(world, version):
    async with server_process() as url:
        await _co_view(url, url, world, version)


async def test_two_server_processes_share_rooms_through_redis(world, version, redis_url):
    env = {"PLUMBLINE_REDIS_URL": redis_url, "PLUMBLINE_PUBSUB_PREFIX": f"test-{new_id()}"}
    async with server_process(env) as url_a, server_process(env) as url_b:
        await _co_view(url_a, url_b, world, version)
        await _disconnect_is_seen_across(url_a, url_b, world, version)
