import asyncio
from datetime import UTC, datetime, timedelta

from plumbline.kit import clock
from tests.factories import (
    add_member,
    audit_entries,
    create_api_key,
    create_project,
    create_user,
    key_headers,
    make_world,
)
from tests.viewer.helpers import create_file_version, delete_version, set_project_modules

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


def lock_url(version_id: str) -> str:
    return f"/api/v1/files/{version_id}/lock"


async def test_lock_returns_holder_and_five_minute_expiry(client, world, version):
    clock.set_now(T0)
    response = await client.post(lock_url(version.id), headers=world.member.headers)
    assert response.status_code == 200
    assert response.json() == {
        "fileVersionId": version.id,
        "lockedBy": world.member.id,
        "lockedAt": "2026-11-21T09:00:00.000Z",
        "expiresAt": "2026-11-21T09:05:00.000Z",
    }
    assert [e.action for e in await audit_entries(version.id)] == ["file.locked"]


async def test_lock_held_by_someone_else_is_409_with_holder_and_expiry(client, world, version):
    clock.set_now(T0)
    await client.post(lock_url(version.id), headers=world.member.headers)
    clock.set_now(T0 + timedelta(minutes=4, seconds=59))
    response = await client.post(lock_url(version.id), headers=world.manager.headers)
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "LOCKED"
    assert body["lockedBy"] == world.member.id
    assert body["expiresAt"] == "2026-11-21T09:05:00.000Z"
    assert body["error"]


async def test_holder_renews_keeping_lock_time(client, world, version):
    clock.set_now(T0)
    await client.post(lock_url(version.id), headers=world.member.headers)
    clock.set_now(T0 + timedelta(minutes=3))
    response = await client.post(lock_url(version.id), headers=world.member.headers)
    assert response.status_code == 200
    assert response.json()["lockedAt"] == "2026-11-21T09:00:00.000Z"
    assert response.json()["expiresAt"] == "2026-11-21T09:08:00.000Z"
    # a renewal is not a new acquisition in the audit trail
    assert [e.action for e in await audit_entries(version.id)] == ["file.locked"]
    clock.set_now(T0 + timedelta(minutes=7))
    other = await client.post(lock_url(version.id), headers=world.manager.headers)
    assert other.status_code == 409


async def test_lock_expires_after_five_minutes(client, world, version):
    clock.set_now(T0)
    await client.post(lock_url(version.id), headers=world.member.headers)
    clock.set_now(T0 + timedelta(minutes=5))
    response = await client.post(lock_url(version.id), headers=world.manager.headers)
    assert response.status_code == 200
    assert response.json()["lockedBy"] == world.manager.id
    assert response.json()["lockedAt"] == "2026-11-21T09:05:00.000Z"


async def test_manager_forces_a_lock_and_it_is_audited(client, world, version):
    await client.post(lock_url(version.id), headers=world.member.headers)
    response = await client.post(
        lock_url(version.id), params={"force": "true"}, headers=world.manager.headers
    )
    assert response.status_code == 200
    assert response.json()["lockedBy"] == world.manager.id
    forced = [e for e in await audit_entries(version.id) if e.action == "file.lock_forced"]
    assert len(forced) == 1
    assert forced[0].actor_user_id == world.manager.id
    assert forced[0].changes == {"lockedBy": [world.member.id, world.manager.id]}
    assert forced[0].project_id == world.project.id
    # the former holder is now the one refused
    again = await client.post(lock_url(version.id), headers=world.member.headers)
    assert again.status_code == 409
    assert again.json()["lockedBy"] == world.manager.id


async def test_member_cannot_force(client, world, version):
    await client.post(lock_url(version.id), headers=world.manager.headers)
    response = await client.post(
        lock_url(version.id), params={"force": "true"}, headers=world.member.headers
    )
    assert response.status_code == 403
    assert response.json()["code"] == "FORBIDDEN"
    holder = await client.post(lock_url(version.id), headers=world.manager.headers)
    assert holder.json()["lockedBy"] == world.manager.id


async def test_concurrent_acquirers_exactly_one_wins(client, world, version):
    users = [world.member, world.manager, world.admin, world.owner]
    for _ in range(2):
        extra = await create_user(name="Racer")
        await add_member(world.workspace, extra, "MEMBER")
        users.append(extra)
    responses = await asyncio.gather(
        *(client.post(lock_url(version.id), headers=u.headers) for u in users)
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * (len(users) - 1)
    winner = next(r for r in responses if r.status_code == 200).json()["lockedBy"]
    assert all(r.json()["lockedBy"] == winner for r in responses if r.status_code == 409)


async def test_concurrent_takeover_of_an_expired_lock_has_one_winner(client, world, version):
    clock.set_now(T0)
    await client.post(lock_url(version.id), headers=world.owner.headers)
    clock.set_now(T0 + timedelta(minutes=6))
    users = [world.member, world.manager, world.admin]
    responses = await asyncio.gather(
        *(client.post(lock_url(version.id), headers=u.headers) for u in users)
    )
    assert sorted(r.status_code for r in responses) == [200, 409, 409]


async def test_release_by_holder_lets_others_lock(client, world, version):
    await client.post(lock_url(version.id), headers=world.member.headers)
    response = await client.delete(lock_url(version.id), headers=world.member.headers)
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert "file.unlocked" in [e.action for e in await audit_entries(version.id)]
    other = await client.post(lock_url(version.id), headers=world.manager.headers)
    assert other.status_code == 200


async def test_release_of_someone_elses_lock(client, world, version):
    colleague = await create_user(name="Colleague")
    await add_member(world.workspace, colleague, "MEMBER")
    await client.post(lock_url(version.id), headers=world.member.headers)
    refused = await client.delete(lock_url(version.id), headers=colleague.headers)
    assert refused.status_code == 403
    still = await client.post(lock_url(version.id), headers=colleague.headers)
    assert still.status_code == 409
    broken = await client.delete(lock_url(version.id), headers=world.manager.headers)
    assert broken.status_code == 200
    taken = await client.post(lock_url(version.id), headers=colleague.headers)
    assert taken.status_code == 200


async def test_release_without_a_live_lock_is_ok(client, world, version):
    clock.set_now(T0)
    response = await client.delete(lock_url(version.id), headers=world.member.headers)
    assert response.status_code == 200
    await client.post(lock_url(version.id), headers=world.manager.headers)
    clock.set_now(T0 + timedelta(minutes=10))
    expired = await client.delete(lock_url(version.id), headers=world.member.headers)
    assert expired.status_code == 200


async def test_lock_access_failures(client, world, version):
    assert (await client.post(lock_url(version.id))).status_code == 401
    assert (await client.delete(lock_url(version.id))).status_code == 401

    other = await make_world()
    for method in ("POST", "DELETE"):
        response = await client.request(method, lock_url(version.id), headers=other.member.headers)
        assert response.status_code == 404
        assert response.json()["code"] == "NOT_FOUND"
    unknown = await client.post(lock_url("0" * 32), headers=world.member.headers)
    assert unknown.status_code == 404

    raw, _ = await create_api_key(world.project, ["files:read", "files:write"])
    keyed = await client.post(lock_url(version.id), headers=key_headers(raw))
    assert keyed.status_code == 403
    assert keyed.json()["code"] == "API_KEY_PROJECT"


async def test_lock_respects_project_visibility_and_role(client, world, version):
    elsewhere = await create_project(world.workspace, name="Other site")
    restricted = await create_user(name="Restricted")
    await add_member(world.workspace, restricted, "MEMBER", project_ids=[elsewhere.id])
    assert (await client.post(lock_url(version.id), headers=restricted.headers)).status_code == 404

    contractor = await create_user(name="Contractor")
    await add_member(
        world.workspace,
        contractor,
        "MEMBER",
        external_role="CONTRACTOR",
        project_ids=[world.project.id],
    )
    response = await client.post(lock_url(version.id), headers=contractor.headers)
    assert response.status_code == 403


async def test_deleted_versions_and_files_are_404(client, world):
    version = await create_file_version(world.project)
    await delete_version(version)
    assert (
        await client.post(lock_url(version.id), headers=world.member.headers)
    ).status_code == 404
    other = await create_file_version(world.project)
    await delete_version(other, whole_file=True)
    assert (await client.post(lock_url(other.id), headers=world.member.headers)).status_code == 404


async def test_disabled_files_module_is_403(client):
    world = await make_world()
    version = await create_file_version(world.project)
    await set_project_modules(world.project, {"files": False})
    response = await client.post(lock_url(version.id), headers=world.member.headers)
    assert response.status_code == 403
    assert response.json()["code"] == "MODULE_DISABLED"
