"""File routes: list, rename/move, delete (whole or a version), open, read URL, content."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.storage import get_storage
from plumbline.models import AuditLog, File, FileLock
from tests.factories import (
    QueryCounter,
    add_member,
    create_api_key,
    create_project,
    create_user,
    key_headers,
    make_world,
)
from tests.file.helpers import PDF, presign, storage_used, upload, version_row


async def _folder(client, world, name, parent_id=None):
    response = await client.post(
        f"/api/v1/projects/{world.project.id}/folders",
        json={"name": name, "parentId": parent_id},
        headers=world.manager.headers,
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_list_files_with_latest_version_in_fixed_queries(client):
    world = await make_world()
    pid, headers = world.project.id, world.member.headers
    folder = await _folder(client, world, "Drawings")
    first = await upload(client, headers, pid, "A-100.pdf", folderId=folder["id"])
    await upload(client, headers, pid, "A-100.pdf", PDF + b"v2", folderId=folder["id"])
    url = f"/api/v1/projects/{pid}/files?folderId={folder['id']}"
    with QueryCounter() as one:
        response = await client.get(url, headers=headers)
    assert response.status_code == 200
    [row] = response.json()
    assert row["id"] == first["id"] and row["version"] == 2
    assert row["sizeBytes"] == len(PDF) + 2 and row["contentType"] == "application/pdf"
    assert row["folderId"] == folder["id"] and row["disciplines"] == []
    for n in range(4):
        await upload(client, headers, pid, f"A-10{n + 1}.pdf", folderId=folder["id"])
    with QueryCounter() as many:
        response = await client.get(url, headers=headers)
    assert len(response.json()) == 5
    assert many.count == one.count
    root = await upload(client, headers, pid, "root.pdf")
    top = await client.get(f"/api/v1/projects/{pid}/files?folderId=root", headers=headers)
    assert [f["id"] for f in top.json()] == [root["id"]]
    every = await client.get(f"/api/v1/projects/{pid}/files", headers=headers)
    assert len(every.json()) == 6
    found = await client.get(f"/api/v1/projects/{pid}/files?q=a-103", headers=headers)
    assert [f["name"] for f in found.json()] == ["A-103.pdf"]
    paged = await client.get(f"/api/v1/projects/{pid}/files?limit=2", headers=headers)
    assert len(paged.json()) == 2 and 'rel="next"' in paged.headers["link"]
    missing = await client.get(f"/api/v1/projects/{pid}/files?folderId=nope", headers=headers)
    assert missing.status_code == 404


async def test_rename_move_and_disciplines(client, world):
    pid = world.project.id
    folder = await _folder(client, world, "Structural")
    mine = await upload(client, world.member.headers, pid, "S-1.pdf")
    url = f"/api/v1/projects/{pid}/files/{mine['id']}"
    renamed = await client.patch(
        url,
        json={"name": "S-001.pdf", "disciplines": ["Structural", "Structural", "Civil"]},
        headers=world.member.headers,
    )
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["name"] == "S-001.pdf"
    assert renamed.json()["disciplines"] == ["Structural", "Civil"]
    move = await client.patch(url, json={"folderId": folder["id"]}, headers=world.member.headers)
    assert move.status_code == 403
    moved = await client.patch(url, json={"folderId": folder["id"]}, headers=world.manager.headers)
    assert moved.status_code == 200 and moved.json()["folderId"] == folder["id"]
    back = await client.patch(url, json={"folderId": None}, headers=world.manager.headers)
    assert back.json()["folderId"] is None
    other = await upload(client, world.manager.headers, pid, "S-2.pdf")
    not_theirs = await client.patch(
        f"/api/v1/projects/{pid}/files/{other['id']}",
        json={"name": "mine.pdf"},
        headers=world.member.headers,
    )
    assert not_theirs.status_code == 403
    clash = await client.patch(url, json={"name": "s-2.PDF"}, headers=world.manager.headers)
    assert clash.status_code == 409 and clash.json()["code"] == "NAME_TAKEN"
    bad_ext = await client.patch(url, json={"name": "S-001.exe"}, headers=world.manager.headers)
    assert bad_ext.status_code == 400
    nowhere = await client.patch(url, json={"folderId": "nope"}, headers=world.manager.headers)
    assert nowhere.status_code == 400  # an id in a body: 400 naming it (issue 24)
    assert nowhere.json()["details"][0]["field"] == "folderId"
    async with database.sessionmaker() as db:
        actions = (
            await db.execute(select(AuditLog.action).where(AuditLog.entity_id == mine["id"]))
        ).scalars()
        assert {"file.uploaded", "file.updated"} <= set(actions)


async def test_delete_a_version_then_the_last_one_frees_storage(client, world):
    pid, ws = world.project.id, world.workspace.id
    v1 = await upload(client, world.member.headers, pid, "E-1.pdf", PDF)
    v2 = await upload(client, world.member.headers, pid, "E-1.pdf", PDF + b"22")
    used = await storage_used(ws)
    url = f"/api/v1/projects/{pid}/files/{v1['id']}"
    member = await client.delete(url + "?version=2", headers=world.member.headers)
    assert member.status_code == 403
    gone = await client.delete(url + "?version=2", headers=world.manager.headers)
    assert gone.status_code == 200 and gone.json() == {"ok": True}
    assert await storage_used(ws) == used - len(PDF) - 2
    key2 = (await version_row(v2["fileVersionId"])).storage_key
    assert await get_storage().head(key2) is None
    revision = await client.get(
        f"/api/v1/files/{v1['id']}/resolved-revision", headers=world.member.headers
    )
    assert revision.json()["version"] == 1
    assert [v["version"] for v in revision.json()["versions"]] == [1]
    again = await client.delete(url + "?version=2", headers=world.manager.headers)
    assert again.status_code == 404
    last = await client.delete(url + "?version=1", headers=world.manager.headers)
    assert last.status_code == 200
    assert await storage_used(ws) == used - 2 * len(PDF) - 2
    async with database.sessionmaker() as db:
        file = (await db.execute(select(File).where(File.id == v1["id"]))).scalar_one()
        assert file.deleted_at is not None
    listed = await client.get(f"/api/v1/projects/{pid}/files", headers=world.member.headers)
    assert v1["id"] not in [f["id"] for f in listed.json()]
    assert (await client.delete(url, headers=world.manager.headers)).status_code == 404
    # the version number is never reused
    again_v = await upload(client, world.member.headers, pid, "E-1.pdf")
    assert again_v["id"] != v1["id"] and again_v["version"] == 1


async def test_delete_whole_file_frees_every_version(client, world):
    pid, ws = world.project.id, world.workspace.id
    first = await upload(client, world.member.headers, pid, "W-1.pdf", PDF)
    await upload(client, world.member.headers, pid, "W-1.pdf", PDF + b"x")
    used = await storage_used(ws)
    response = await client.delete(
        f"/api/v1/projects/{pid}/files/{first['id']}", headers=world.manager.headers
    )
    assert response.status_code == 200
    assert await storage_used(ws) == used - 2 * len(PDF) - 1
    content = await client.get(f"/api/v1/files/{first['id']}/content", headers=world.member.headers)
    assert content.status_code == 404


async def test_version_locked_by_another_user_is_not_deleted(client, world):
    pid = world.project.id
    first = await upload(client, world.member.headers, pid, "L-1.pdf", PDF)
    second = await upload(client, world.member.headers, pid, "L-1.pdf", PDF + b"2")
    async with database.sessionmaker() as db:
        now = clock.now()
        db.add(
            FileLock(
                file_version_id=second["fileVersionId"],
                locked_by=world.member.id,
                locked_at=now,
                expires_at=now + timedelta(minutes=5),
            )
        )
        await db.commit()
    url = f"/api/v1/projects/{pid}/files/{first['id']}"
    refused = await client.delete(url + "?version=2", headers=world.manager.headers)
    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "LOCKED" and body["lockedBy"] == world.member.id
    assert body["expiresAt"]
    whole = await client.delete(url, headers=world.manager.headers)
    assert whole.status_code == 409
    clock.set_now(clock.now() + timedelta(minutes=6))
    expired = await client.delete(url + "?version=2", headers=world.manager.headers)
    assert expired.status_code == 200


async def test_own_lock_does_not_block_own_delete(client, world):
    pid = world.project.id
    first = await upload(client, world.manager.headers, pid, "K-1.pdf", PDF)
    async with database.sessionmaker() as db:
        now = clock.now()
        db.add(
            FileLock(
                file_version_id=first["fileVersionId"],
                locked_by=world.manager.id,
                locked_at=now,
                expires_at=now + timedelta(minutes=5),
            )
        )
        await db.commit()
    response = await client.delete(
        f"/api/v1/projects/{pid}/files/{first['id']}", headers=world.manager.headers
    )
    assert response.status_code == 200


async def test_open_records_last_opened_and_returns_latest(client, world):
    pid = world.project.id
    first = await upload(client, world.member.headers, pid, "O-1.pdf", PDF)
    second = await upload(client, world.member.headers, pid, "O-1.pdf", PDF + b"2")
    opened = await client.post(
        f"/api/v1/projects/{pid}/files/{first['id']}/open", headers=world.member.headers
    )
    assert opened.status_code == 200
    assert opened.json() == {
        "fileId": first["id"],
        "fileVersionId": second["fileVersionId"],
        "version": 2,
        "name": "O-1.pdf",
        "contentType": "application/pdf",
        "sizeBytes": len(PDF) + 1,
    }
    direct = await client.post(f"/api/v1/files/{first['id']}/open", headers=world.member.headers)
    assert direct.json() == opened.json()
    listed = await client.get(f"/api/v1/projects/{pid}/files", headers=world.member.headers)
    row = next(f for f in listed.json() if f["id"] == first["id"])
    assert row["lastOpenedAt"] is not None


async def test_content_streams_with_etag_and_ranges(client, world):
    data = bytes(range(256)) * 64
    result = await upload(client, world.member.headers, world.project.id, "R-1.pdf", data)
    url = f"/api/v1/files/{result['id']}/content"
    headers = world.member.headers
    full = await client.get(url, headers=headers)
    assert full.status_code == 200 and full.content == data
    assert full.headers["content-type"] == "application/pdf"
    assert full.headers["content-length"] == str(len(data))
    assert full.headers["accept-ranges"] == "bytes"
    etag = full.headers["etag"]
    assert etag == f'"{result["fileVersionId"]}"'
    part = await client.get(url, headers={**headers, "Range": "bytes=100-299"})
    assert part.status_code == 206 and part.content == data[100:300]
    assert part.headers["content-range"] == f"bytes 100-299/{len(data)}"
    assert part.headers["content-length"] == "200"
    tail = await client.get(url, headers={**headers, "Range": "bytes=-10"})
    assert tail.status_code == 206 and tail.content == data[-10:]
    open_end = await client.get(url, headers={**headers, "Range": f"bytes={len(data) - 5}-"})
    assert open_end.content == data[-5:]
    beyond = await client.get(url, headers={**headers, "Range": f"bytes={len(data)}-"})
    assert beyond.status_code == 416
    assert beyond.headers["content-range"] == f"bytes */{len(data)}"
    cached = await client.get(url, headers={**headers, "If-None-Match": etag})
    assert cached.status_code == 304 and cached.content == b""
    stale = await client.get(url, headers={**headers, "Range": "bytes=0-9", "If-Range": '"x"'})
    assert stale.status_code == 200 and stale.content == data
    missing_version = await client.get(url + "?version=7", headers=headers)
    assert missing_version.status_code == 404


async def test_presign_read_url_downloads_the_bytes(client, world):
    result = await upload(client, world.member.headers, world.project.id, "P 1.pdf", PDF)
    response = await client.get(
        f"/api/v1/files/{result['id']}/presign-read", headers=world.member.headers
    )
    assert response.status_code == 200
    body = response.json()
    assert body["expiresAt"] and body["url"].startswith("http://127.0.0.1:8000/api/v1/storage/")
    got = await client.get(body["url"])
    assert got.status_code == 200 and got.content == PDF
    assert got.headers["content-type"] == "application/pdf"
    assert 'filename="P 1.pdf"' in got.headers["content-disposition"]
    ranged = await client.get(body["url"], headers={"Range": "bytes=0-3"})
    assert ranged.status_code == 206 and ranged.content == PDF[:4]
    tampered = await client.get(body["url"][:-3] + "abc")
    assert tampered.status_code == 403
    clock.set_now(clock.now() + timedelta(hours=2))
    assert (await client.get(body["url"])).status_code == 410


async def test_resolved_revision_lists_versions_newest_first(client, world):
    pid = world.project.id
    first = await upload(client, world.member.headers, pid, "V-1.pdf", PDF)
    await upload(client, world.manager.headers, pid, "V-1.pdf", PDF + b"two")
    response = await client.get(
        f"/api/v1/files/{first['id']}/resolved-revision", headers=world.member.headers
    )
    body = response.json()
    assert body["fileId"] == first["id"] and body["version"] == 2
    assert [v["version"] for v in body["versions"]] == [2, 1]
    assert body["versions"][0]["createdBy"] == world.manager.id
    assert body["versions"][1]["sizeBytes"] == len(PDF)
    assert body["fileVersionId"] == body["versions"][0]["id"]


async def test_api_keys_on_read_routes(client, world):
    pid = world.project.id
    result = await upload(client, world.member.headers, pid, "K.pdf", PDF)
    reader, _ = await create_api_key(world.project, ["files:read"])
    for path in ("content", "presign-read", "resolved-revision"):
        response = await client.get(
            f"/api/v1/files/{result['id']}/{path}", headers=key_headers(reader)
        )
        assert response.status_code == 200, (path, response.text)
    writer, _ = await create_api_key(world.project, ["files:write"])
    refused = await client.get(f"/api/v1/files/{result['id']}/content", headers=key_headers(writer))
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: files:read"
    other = await create_project(world.workspace, name="Elsewhere")
    other_key, _ = await create_api_key(other, ["files:read"])
    elsewhere = await client.get(
        f"/api/v1/files/{result['id']}/content", headers=key_headers(other_key)
    )
    assert elsewhere.status_code == 403 and elsewhere.json()["code"] == "API_KEY_PROJECT"
    stranger = await make_world()
    foreign_key, _ = await create_api_key(stranger.project, ["files:read"])
    foreign = await client.get(
        f"/api/v1/files/{result['id']}/presign-read", headers=key_headers(foreign_key)
    )
    assert foreign.status_code == 404
    listed = await client.get(f"/api/v1/projects/{pid}/files", headers=key_headers(reader))
    assert listed.status_code == 200


async def test_other_tenants_and_anonymous_get_404_or_401(client, world):
    result = await upload(client, world.member.headers, world.project.id, "T.pdf", PDF)
    stranger = await make_world()
    for method, path in [
        ("GET", f"/api/v1/files/{result['id']}/content"),
        ("GET", f"/api/v1/files/{result['id']}/presign-read"),
        ("GET", f"/api/v1/files/{result['id']}/resolved-revision"),
        ("POST", f"/api/v1/files/{result['id']}/open"),
        ("POST", f"/api/v1/projects/{stranger.project.id}/files/{result['id']}/open"),
        ("PATCH", f"/api/v1/projects/{stranger.project.id}/files/{result['id']}"),
        ("DELETE", f"/api/v1/projects/{stranger.project.id}/files/{result['id']}"),
    ]:
        response = await client.request(
            method,
            path,
            headers=stranger.owner.headers,
            json={"name": "x.pdf"} if method == "PATCH" else None,
        )
        assert response.status_code == 404, (method, path, response.status_code)
    anonymous = await client.get(f"/api/v1/files/{result['id']}/content")
    assert anonymous.status_code == 401
    assert (await client.get(f"/api/v1/projects/{world.project.id}/files")).status_code == 401


async def test_clients_read_files_only_when_drawings_are_shown(client, world):
    result = await upload(client, world.member.headers, world.project.id, "C.pdf", PDF)
    hidden_client = await create_user(name="Cleo Client")
    await add_member(
        world.workspace, hidden_client, external_role="CLIENT", project_ids=[world.project.id]
    )
    refused = await client.get(
        f"/api/v1/files/{result['id']}/content", headers=hidden_client.headers
    )
    # a file the project does not show clients is hidden, like their unshared records
    assert refused.status_code == 404
    shown = await create_project(
        world.workspace, name="Shown", client_visibility={"showDrawings": True}
    )
    visible = await upload(client, world.member.headers, shown.id, "C.pdf", PDF)
    viewer = await create_user(name="Vic Client")
    await add_member(world.workspace, viewer, external_role="CLIENT", project_ids=[shown.id])
    allowed = await client.get(f"/api/v1/files/{visible['id']}/content", headers=viewer.headers)
    assert allowed.status_code == 200 and allowed.content == PDF
    upload_refused = await client.post(
        "/api/v1/files/presign-upload",
        json={
            "fileName": "x.pdf",
            "contentType": "application/pdf",
            "sizeBytes": 3,
            "projectId": shown.id,
        },
        headers=viewer.headers,
    )
    assert upload_refused.status_code == 403


async def test_content_missing_object_is_404(client, world):
    result = await upload(client, world.member.headers, world.project.id, "gone.pdf", PDF)
    await get_storage().delete((await version_row(result["fileVersionId"])).storage_key)
    response = await client.get(
        f"/api/v1/files/{result['id']}/content", headers=world.member.headers
    )
    assert response.status_code == 404


async def test_huge_numbers_in_version_and_range_are_client_errors(client, world):
    data = bytes(range(256)) * 4
    result = await upload(client, world.member.headers, world.project.id, "H-1.pdf", data)
    base = f"/api/v1/files/{result['id']}"
    headers = world.member.headers
    for huge in ("9223372036854775808", "2147483648", "1" * 5000):
        for route in ("content", "presign-read"):
            response = await client.get(f"{base}/{route}?version={huge}", headers=headers)
            assert response.status_code == 400, response.text
            assert response.json()["code"] == "VALIDATION_FAILED"
    digits = "9" * 5000
    signed = (await client.get(f"{base}/presign-read", headers=headers)).json()["url"]
    for url, sent in ((f"{base}/content", headers), (signed, {})):
        beyond = await client.get(url, headers={**sent, "Range": f"bytes={digits}-"})
        assert beyond.status_code == 416
        whole = await client.get(url, headers={**sent, "Range": f"bytes=-{digits}"})
        assert whole.status_code == 206 and whole.content == data
        capped = await client.get(url, headers={**sent, "Range": f"bytes=0{digits}-"})
        assert capped.status_code == 416
        open_end = await client.get(url, headers={**sent, "Range": f"bytes=10-{digits}"})
        assert open_end.status_code == 206 and open_end.content == data[10:]


async def test_file_folder_and_photo_names_share_one_rule(client, world):
    headers = world.member.headers
    pid = world.project.id
    result = await upload(client, headers, pid, "N-1.pdf")
    issue = await client.post(
        f"/api/v1/projects/{pid}/issues", json={"title": "t"}, headers=headers
    )
    photos = f"/api/v1/projects/{pid}/issues/{issue.json()['id']}/reference-photos/presign"
    for name in ("bell\a.pdf", "\x1b[31mred.pdf", "back\bspace.pdf", "del\x7f.pdf", "a/b.pdf"):
        attempts = [
            await presign(client, headers, pid, name, 10),
            await client.patch(
                f"/api/v1/projects/{pid}/files/{result['id']}", json={"name": name}, headers=headers
            ),
            await client.post(
                f"/api/v1/projects/{pid}/folders", json={"name": name}, headers=headers
            ),
            await client.post(
                photos,
                json={"fileName": name, "contentType": "image/png", "sizeBytes": 10},
                headers=headers,
            ),
        ]
        assert [a.status_code for a in attempts] == [400] * 4, (name, [a.text for a in attempts])
    renamed = await client.patch(
        f"/api/v1/projects/{pid}/files/{result['id']}",
        json={"name": "Plan B (rév 2).pdf"},
        headers=headers,
    )
    assert renamed.status_code == 200 and renamed.json()["name"] == "Plan B (rév 2).pdf"
