import asyncio

import orjson

from tests.factories import (
    add_member,
    audit_entries,
    create_api_key,
    create_user,
    key_headers,
    make_world,
)

MiB = 1024 * 1024


def state_url(version_id: str) -> str:
    return f"/api/v1/file-versions/{version_id}/viewer-state"


async def test_empty_state_before_the_first_save(client, world, version):
    response = await client.get(state_url(version.id), headers=world.member.headers)
    assert response.status_code == 200
    assert response.json() == {"viewerState": {}, "revision": 0}


async def test_saves_advance_the_revision(client, world, version):
    first = {"markups": [{"id": "m1", "type": "cloud", "page": 0}]}
    response = await client.put(
        state_url(version.id),
        json={"viewerState": first, "baseRevision": 0},
        headers=world.member.headers,
    )
    assert response.status_code == 200
    assert response.json() == {"revision": 1}
    second = {"markups": [*first["markups"], {"id": "m2", "type": "arrow", "page": 2}]}
    response = await client.put(
        state_url(version.id),
        json={"viewerState": second, "baseRevision": 1},
        headers=world.manager.headers,
    )
    assert response.json() == {"revision": 2}
    read = await client.get(state_url(version.id), headers=world.admin.headers)
    assert read.json() == {"viewerState": second, "revision": 2}
    saves = [e for e in await audit_entries(version.id) if e.action == "file.viewer_state_saved"]
    assert [e.changes for e in saves] == [{"revision": [0, 1]}, {"revision": [1, 2]}]


async def test_stale_base_revision_is_409_with_the_current_state(client, world, version):
    current = {"markups": [{"id": "a"}]}
    await client.put(
        state_url(version.id),
        json={"viewerState": current, "baseRevision": 0},
        headers=world.member.headers,
    )
    for base in (0, 5):
        response = await client.put(
            state_url(version.id),
            json={"viewerState": {"markups": []}, "baseRevision": base},
            headers=world.manager.headers,
        )
        assert response.status_code == 409
        body = response.json()
        assert body["code"] == "REVISION_CONFLICT"
        assert body["viewerState"] == current
        assert body["revision"] == 1
        assert body["error"]
    read = await client.get(state_url(version.id), headers=world.member.headers)
    assert read.json() == {"viewerState": current, "revision": 1}


async def test_base_revision_ahead_of_an_empty_state_conflicts(client, world, version):
    response = await client.put(
        state_url(version.id),
        json={"viewerState": {"x": 1}, "baseRevision": 3},
        headers=world.member.headers,
    )
    assert response.status_code == 409
    assert response.json()["viewerState"] == {}
    assert response.json()["revision"] == 0


async def test_concurrent_saves_on_one_base_have_one_winner(client, world, version):
    await client.put(
        state_url(version.id),
        json={"viewerState": {"n": 0}, "baseRevision": 0},
        headers=world.member.headers,
    )
    users = [world.member, world.manager, world.admin, world.owner]
    responses = await asyncio.gather(
        *(
            client.put(
                state_url(version.id),
                json={"viewerState": {"n": i}, "baseRevision": 1},
                headers=u.headers,
            )
            for i, u in enumerate(users, start=1)
        )
    )
    assert sorted(r.status_code for r in responses) == [200, 409, 409, 409]
    winner = next(i for i, r in enumerate(responses, start=1) if r.status_code == 200)
    read = await client.get(state_url(version.id), headers=world.member.headers)
    assert read.json() == {"viewerState": {"n": winner}, "revision": 2}


async def test_concurrent_first_saves_have_one_winner(client, world, version):
    users = [world.member, world.manager, world.admin]
    responses = await asyncio.gather(
        *(
            client.put(
                state_url(version.id),
                json={"viewerState": {"by": u.id}, "baseRevision": 0},
                headers=u.headers,
            )
            for u in users
        )
    )
    assert sorted(r.status_code for r in responses) == [200, 409, 409]


async def test_large_state_up_to_eight_mebibytes(client, world, version):
    big = {"markups": ["x" * 1000] * (3 * 1024)}  # about 3 MiB: over the 1 MiB JSON limit
    response = await client.put(
        state_url(version.id),
        json={"viewerState": big, "baseRevision": 0},
        headers=world.member.headers,
    )
    assert response.status_code == 200
    read = await client.get(state_url(version.id), headers=world.member.headers)
    assert read.json()["viewerState"] == big


async def test_state_over_eight_mebibytes_is_413(client, world, version):
    body = orjson.dumps({"viewerState": {"blob": "x" * (8 * MiB)}, "baseRevision": 0})
    response = await client.put(
        state_url(version.id),
        content=body,
        headers={**world.member.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
    read = await client.get(state_url(version.id), headers=world.member.headers)
    assert read.json()["revision"] == 0


async def test_version_locked_by_someone_else_refuses_saves(client, world, version):
    lock = await client.post(f"/api/v1/files/{version.id}/lock", headers=world.manager.headers)
    assert lock.status_code == 200
    response = await client.put(
        state_url(version.id),
        json={"viewerState": {"a": 1}, "baseRevision": 0},
        headers=world.member.headers,
    )
    assert response.status_code == 409
    assert response.json()["code"] == "LOCKED"
    assert response.json()["lockedBy"] == world.manager.id
    assert response.json()["expiresAt"] == lock.json()["expiresAt"]
    own = await client.put(
        state_url(version.id),
        json={"viewerState": {"a": 1}, "baseRevision": 0},
        headers=world.manager.headers,
    )
    assert own.status_code == 200


async def test_invalid_bodies_are_400(client, world, version):
    for body in (
        {"viewerState": [1, 2], "baseRevision": 0},
        {"viewerState": "text", "baseRevision": 0},
        {"viewerState": {}, "baseRevision": -1},
        {"viewerState": {}},
        {"baseRevision": 0},
    ):
        response = await client.put(state_url(version.id), json=body, headers=world.member.headers)
        assert response.status_code == 400, body
        assert response.json()["code"] == "VALIDATION_FAILED"
    read = await client.get(state_url(version.id), headers=world.member.headers)
    assert read.json()["revision"] == 0


async def test_viewer_state_access_failures(client, world, version):
    assert (await client.get(state_url(version.id))).status_code == 401
    put = await client.put(state_url(version.id), json={"viewerState": {}, "baseRevision": 0})
    assert put.status_code == 401

    other = await make_world()
    assert (await client.get(state_url(version.id), headers=other.owner.headers)).status_code == 404
    put = await client.put(
        state_url(version.id),
        json={"viewerState": {}, "baseRevision": 0},
        headers=other.owner.headers,
    )
    assert put.status_code == 404

    client_user = await create_user(name="Client")
    await add_member(
        world.workspace,
        client_user,
        "MEMBER",
        external_role="CLIENT",
        project_ids=[world.project.id],
    )
    # the project does not show clients its drawings: the version is hidden
    assert (await client.get(state_url(version.id), headers=client_user.headers)).status_code == 404


async def test_api_keys_read_with_files_read_only(client, world, version):
    raw, _ = await create_api_key(world.project, ["files:read"])
    response = await client.get(state_url(version.id), headers=key_headers(raw))
    assert response.status_code == 200
    assert response.json() == {"viewerState": {}, "revision": 0}

    unscoped, _ = await create_api_key(world.project, ["issues:read"])
    response = await client.get(state_url(version.id), headers=key_headers(unscoped))
    assert response.status_code == 403
    assert response.json()["error"] == "API key missing scope: files:read"

    other = await make_world()
    foreign, _ = await create_api_key(other.project, ["files:read"])
    assert (
        await client.get(state_url(version.id), headers=key_headers(foreign))
    ).status_code == 404

    put = await client.put(
        state_url(version.id), json={"viewerState": {}, "baseRevision": 0}, headers=key_headers(raw)
    )
    assert put.status_code == 403


def _nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"a": [value]}
    return value


async def test_state_nested_beyond_the_limit_is_refused(client, world, version):
    deep = await client.put(
        state_url(version.id),
        json={"viewerState": _nested(270), "baseRevision": 0},
        headers=world.member.headers,
    )
    assert deep.status_code == 400, deep.text
    assert deep.json()["code"] == "VALIDATION_FAILED"
    assert "nested" in deep.json()["error"]
    # 31 levels of {"a": [...]} are 62 of JSON under viewerState: within the limit of 64.
    kept = await client.put(
        state_url(version.id),
        json={"viewerState": _nested(31), "baseRevision": 0},
        headers=world.member.headers,
    )
    assert kept.status_code == 200, kept.text
    read = await client.get(state_url(version.id), headers=world.member.headers)
    assert read.json()["viewerState"] == _nested(31)


async def test_state_with_integers_beyond_64_bits_is_refused(client, world, version):
    for number in (2**63, -(2**63) - 1, 10**30):
        response = await client.put(
            state_url(version.id),
            json={"viewerState": {"zoom": [{"level": number}]}, "baseRevision": 0},
            headers=world.member.headers,
        )
        assert response.status_code == 400, response.text
        assert response.json()["code"] == "VALIDATION_FAILED"
    kept = await client.put(
        state_url(version.id),
        json={"viewerState": {"zoom": 2**63 - 1}, "baseRevision": 0},
        headers=world.member.headers,
    )
    assert kept.status_code == 200, kept.text
