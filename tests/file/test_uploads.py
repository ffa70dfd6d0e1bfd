"""The four-step upload: preview, presign, PUT, complete."""

from __future__ import annotations

from datetime import timedelta

from plumbline.authz.plans import STORAGE_QUOTA
from plumbline.config import settings
from plumbline.kit import clock
from plumbline.kit.storage import get_storage
from tests.factories import create_api_key, create_project, key_headers, make_world
from tests.file.helpers import (
    PDF,
    complete,
    count_files,
    presign,
    put_bytes,
    set_storage_used,
    sha,
    storage_used,
    upload,
    upload_row,
)


async def test_four_steps_record_a_file_then_a_second_version(client, world):
    headers, project = world.member.headers, world.project
    used = await storage_used(world.workspace.id)
    first = await upload(client, headers, project.id, "A-101.pdf", PDF)
    assert first["name"] == "A-101.pdf" and first["version"] == 1
    assert first["sizeBytes"] == len(PDF) and first["contentType"] == "application/pdf"
    assert first["folderId"] is None and first["fileVersionId"]
    data2 = PDF + b"revision B"
    second = await upload(client, headers, project.id, "a-101.PDF", data2)
    assert second["id"] == first["id"] and second["version"] == 2
    assert second["fileVersionId"] != first["fileVersionId"]
    assert await storage_used(world.workspace.id) == used + len(PDF) + len(data2)
    content = await client.get(f"/api/v1/files/{first['id']}/content", headers=headers)
    assert content.status_code == 200 and content.content == data2
    old = await client.get(f"/api/v1/files/{first['id']}/content?version=1", headers=headers)
    assert old.content == PDF


async def test_presign_answers_the_upload_target(client, world):
    response = await presign(client, world.member.headers, world.project.id, "Site plan.pdf", 10)
    assert response.status_code == 200, response.text
    target = response.json()
    assert target["method"] == "PUT"
    assert target["headers"] == {"Content-Type": "application/pdf"}
    assert target["uploadUrl"].startswith("http://127.0.0.1:8000/api/v1/storage/upload/")
    prefix = f"ws/{world.workspace.id}/p/{world.project.id}/files/"
    assert target["s3Key"].startswith(prefix)
    assert target["s3Key"].endswith(f"/{target['uploadId']}/Site_plan.pdf")
    expires = target["expiresAt"]
    row = await upload_row(target["uploadId"])
    assert clock.iso(row.expires_at) == expires
    assert row.expires_at - row.created_at == timedelta(hours=1)


async def test_completing_twice_returns_the_same_result(client, world):
    headers = world.member.headers
    target = (await presign(client, headers, world.project.id, "twice.pdf", len(PDF))).json()
    assert (await put_bytes(client, target, PDF)).status_code == 200
    used = await storage_used(world.workspace.id)
    first = await complete(client, headers, target["uploadId"])
    second = await complete(client, headers, target["uploadId"], sha(PDF))
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert await storage_used(world.workspace.id) == used + len(PDF)


async def test_size_mismatch_records_nothing_and_removes_the_object(client, world):
    headers, project = world.member.headers, world.project
    target = (await presign(client, headers, project.id, "short.pdf", len(PDF) + 5)).json()
    assert (await put_bytes(client, target, PDF)).status_code == 200
    before, used = await count_files(project.id), await storage_used(world.workspace.id)
    response = await complete(client, headers, target["uploadId"])
    assert response.status_code == 400
    assert response.json()["code"] == "SIZE_MISMATCH"
    assert await count_files(project.id) == before
    assert await storage_used(world.workspace.id) == used
    assert await get_storage().head(target["s3Key"]) is None
    assert (await upload_row(target["uploadId"])).status == "PENDING"


async def test_checksum_mismatch_records_nothing(client, world):
    headers, project = world.member.headers, world.project
    target = (await presign(client, headers, project.id, "sum.pdf", len(PDF))).json()
    assert (await put_bytes(client, target, PDF)).status_code == 200
    before = await count_files(project.id)
    response = await complete(client, headers, target["uploadId"], sha(b"other bytes"))
    assert response.status_code == 400
    assert response.json()["code"] == "CHECKSUM_MISMATCH"
    assert await count_files(project.id) == before
    assert await get_storage().head(target["s3Key"]) is None


async def test_never_uploaded_is_refused_then_completes_after_the_put(client, world):
    headers = world.member.headers
    target = (await presign(client, headers, world.project.id, "later.pdf", len(PDF))).json()
    missing = await complete(client, headers, target["uploadId"])
    assert missing.status_code == 409 and missing.json()["code"] == "UPLOAD_MISSING"
    assert (await put_bytes(client, target, PDF)).status_code == 200
    assert (await complete(client, headers, target["uploadId"])).status_code == 200


async def test_expired_upload_is_refused(client, world):
    headers, project = world.member.headers, world.project
    target = (await presign(client, headers, project.id, "old.pdf", len(PDF))).json()
    assert (await put_bytes(client, target, PDF)).status_code == 200
    before = await count_files(project.id)
    clock.set_now(clock.now() + timedelta(hours=1, minutes=1))
    response = await complete(client, headers, target["uploadId"])
    assert response.status_code == 410 and response.json()["code"] == "EXPIRED"
    assert await count_files(project.id) == before


async def test_expired_upload_url_refuses_the_put(client, world):
    target = (await presign(client, world.member.headers, world.project.id, "x.pdf", 3)).json()
    clock.set_now(clock.now() + timedelta(hours=2))
    response = await put_bytes(client, target, b"abc")
    assert response.status_code == 410


async def test_put_refuses_more_bytes_than_declared(client, world):
    target = (await presign(client, world.member.headers, world.project.id, "y.pdf", 3)).json()
    response = await put_bytes(client, target, b"abcd")
    assert response.status_code == 413
    assert await get_storage().head(target["s3Key"]) is None


async def test_refused_types_and_sizes(client, world):
    headers, pid = world.member.headers, world.project.id
    exe = await presign(
        client, headers, pid, "setup.exe", 10, content_type="application/x-msdownload"
    )
    assert exe.status_code == 415 and exe.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    mismatch = await presign(client, headers, pid, "plan.pdf", 10, content_type="image/png")
    assert mismatch.status_code == 415
    too_big = await presign(client, headers, pid, "big.pdf", settings.max_upload_bytes + 1)
    assert too_big.status_code == 413
    empty = await presign(client, headers, pid, "empty.pdf", 0)
    assert empty.status_code == 400
    bad = await client.post(
        "/api/v1/files/presign-upload", json={"fileName": "a.pdf"}, headers=headers
    )
    assert bad.status_code == 400 and bad.json()["code"] == "VALIDATION_FAILED"


async def test_generic_content_types_take_the_extension_type(client, world):
    data = b"AC1032" + b"\0" * 100
    result = await upload(
        client,
        world.member.headers,
        world.project.id,
        "S-201.dwg",
        data,
        content_type="application/octet-stream",
    )
    assert result["contentType"] == "image/vnd.dwg"
    for name, ctype in [
        ("model.ifc", "application/x-step"),
        ("photo.HEIC", "image/heic"),
        ("schedule.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        ("notes.txt", "text/plain; charset=utf-8"),
        ("bundle.zip", "application/zip"),
        ("takeoff.csv", "text/csv"),
    ]:
        ok = await presign(
            client, world.member.headers, world.project.id, name, 5, content_type=ctype
        )
        assert ok.status_code == 200, (name, ok.text)


async def test_preview_tells_new_files_versions_suggestions_and_refusals(client, world):
    headers, pid = world.member.headers, world.project.id
    folder = (
        await client.post(
            f"/api/v1/projects/{pid}/folders", json={"name": "Sheets"}, headers=headers
        )
    ).json()
    existing = await upload(client, headers, pid, "A-101.pdf", folderId=folder["id"])
    response = await client.post(
        f"/api/v1/projects/{pid}/uploads/preview",
        json={
            "folderId": folder["id"],
            "files": [
                {"fileName": "a-101.pdf", "contentType": "application/pdf", "sizeBytes": 10},
                {"fileName": "A-101 rev B.pdf", "contentType": "application/pdf", "sizeBytes": 10},
                {"fileName": "A-102.pdf", "contentType": "application/pdf", "sizeBytes": 10},
                {
                    "fileName": "virus.exe",
                    "contentType": "application/octet-stream",
                    "sizeBytes": 1,
                },
                {
                    "fileName": "huge.pdf",
                    "contentType": "application/pdf",
                    "sizeBytes": settings.max_upload_bytes + 1,
                },
            ],
        },
        headers=headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    same, near, new, exe, huge = body["files"]
    assert same["action"] == "new_version" and same["fileId"] == existing["id"]
    assert same["nextVersion"] == 2 and same["allowed"] is True and same["suggestions"] == []
    assert near["action"] == "new_file" and near["fileId"] is None
    assert near["suggestions"] == [{"fileId": existing["id"], "name": "A-101.pdf"}]
    assert new["action"] == "new_file" and new["suggestions"] == []
    assert exe["allowed"] is False and exe["code"] == "UNSUPPORTED_MEDIA_TYPE" and exe["reason"]
    assert huge["allowed"] is False and huge["code"] == "PAYLOAD_TOO_LARGE"
    assert body["totalBytes"] == 30 and body["maxUploadBytes"] == settings.max_upload_bytes


async def test_preview_in_an_unknown_folder_is_400(client, world):
    response = await client.post(
        f"/api/v1/projects/{world.project.id}/uploads/preview",
        json={"folderId": "nope", "files": [{"fileName": "a.pdf", "sizeBytes": 1}]},
        headers=world.member.headers,
    )
    assert response.status_code == 400  # an id in a body: 400 naming it (issue 24)
    assert response.json()["details"][0]["field"] == "folderId"


async def test_upload_into_a_folder_and_as_explicit_new_version(client, world):
    headers, pid = world.member.headers, world.project.id
    folder = (
        await client.post(f"/api/v1/projects/{pid}/folders", json={"name": "MEP"}, headers=headers)
    ).json()
    first = await upload(client, headers, pid, "M-1.pdf", folderId=folder["id"])
    assert first["folderId"] == folder["id"]
    elsewhere = await upload(client, headers, pid, "M-1.pdf")
    assert elsewhere["id"] != first["id"] and elsewhere["version"] == 1
    renamed = await upload(client, headers, pid, "M-1 rev C.pdf", fileId=first["id"])
    assert renamed["id"] == first["id"] and renamed["version"] == 2
    assert renamed["name"] == "M-1.pdf" and renamed["folderId"] == folder["id"]
    unknown = await presign(client, headers, pid, "x.pdf", 5, fileId="missing")
    assert unknown.status_code == 400  # an id in a body: 400 naming it (issue 24)
    assert unknown.json()["details"][0]["field"] == "fileId"
    no_folder = await presign(client, headers, pid, "x.pdf", 5, folderId="missing")
    assert no_folder.status_code == 400
    assert no_folder.json()["details"][0]["field"] == "folderId"


async def test_quota_is_enforced_when_billing_is_on(client, monkeypatch):
    monkeypatch.setattr(settings, "billing", "local")
    world = await make_world(plan="team")
    headers, pid = world.member.headers, world.project.id
    quota = STORAGE_QUOTA["team"]
    # presign while there is room, then fill the workspace before completing
    target = (await presign(client, headers, pid, "late.pdf", len(PDF))).json()
    assert (await put_bytes(client, target, PDF)).status_code == 200
    await set_storage_used(world.workspace.id, quota - 10)
    refused = await presign(client, headers, pid, "full.pdf", 100)
    assert refused.status_code == 402 and refused.json()["code"] == "STORAGE_QUOTA_EXCEEDED"
    before = await count_files(pid)
    late = await complete(client, headers, target["uploadId"])
    assert late.status_code == 402 and late.json()["code"] == "STORAGE_QUOTA_EXCEEDED"
    assert await count_files(pid) == before
    assert await storage_used(world.workspace.id) == quota - 10
    assert await get_storage().head(target["s3Key"]) is None
    await set_storage_used(world.workspace.id, quota - len(PDF))
    fits = await upload(client, headers, pid, "fits.pdf", PDF)
    assert fits["version"] == 1
    assert await storage_used(world.workspace.id) == quota


async def test_no_quota_with_billing_off(client, world):
    await set_storage_used(world.workspace.id, 50 * 1024**4)
    response = await presign(client, world.member.headers, world.project.id, "ok.pdf", 10)
    assert response.status_code == 200


async def test_api_keys_need_the_scope_and_their_project(client, world):
    pid = world.project.id
    raw, _ = await create_api_key(world.project, ["files:write", "files:read"])
    result = await upload(client, key_headers(raw), pid, "from-api.pdf")
    assert result["version"] == 1
    read_only, _ = await create_api_key(world.project, ["files:read"])
    refused = await presign(client, key_headers(read_only), pid, "x.pdf", 5)
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: files:write"
    other = await create_project(world.workspace, name="Other")
    elsewhere = await presign(client, key_headers(raw), other.id, "x.pdf", 5)
    assert elsewhere.status_code == 403 and elsewhere.json()["code"] == "API_KEY_PROJECT"


async def test_complete_is_only_for_whoever_presigned(client, world):
    target = (
        await presign(client, world.member.headers, world.project.id, "m.pdf", len(PDF))
    ).json()
    assert (await put_bytes(client, target, PDF)).status_code == 200
    other = await complete(client, world.manager.headers, target["uploadId"])
    assert other.status_code == 404
    raw, _ = await create_api_key(world.project, ["files:write"])
    assert (await complete(client, key_headers(raw), target["uploadId"])).status_code == 404
    assert (await complete(client, world.member.headers, "nope")).status_code == 404


async def test_anonymous_and_other_tenants(client, world):
    anonymous = await presign(client, {}, world.project.id, "a.pdf", 5)
    assert anonymous.status_code == 401
    stranger = await make_world()
    refused = await presign(client, stranger.owner.headers, world.project.id, "a.pdf", 5)
    assert refused.status_code == 404
    preview = await client.post(
        f"/api/v1/projects/{world.project.id}/uploads/preview",
        json={"files": [{"fileName": "a.pdf", "sizeBytes": 1}]},
        headers=stranger.owner.headers,
    )
    assert preview.status_code == 404


async def test_files_module_disabled_refuses_uploads(client):
    world = await make_world()
    project = await create_project(world.workspace, name="No files", modules={"files": False})
    response = await presign(client, world.member.headers, project.id, "a.pdf", 5)
    assert response.status_code == 403
    assert response.json()["error"] == "Files is disabled for this project"


async def test_external_collaborators_cannot_upload(client, world):
    from tests.factories import add_member, create_user

    contractor = await create_user(name="Carl Contractor")
    await add_member(
        world.workspace, contractor, external_role="CONTRACTOR", project_ids=[world.project.id]
    )
    response = await presign(client, contractor.headers, world.project.id, "a.pdf", 5)
    assert response.status_code == 403


async def test_concurrent_completions_record_one_version(client, world):
    import asyncio

    headers = world.member.headers
    target = (await presign(client, headers, world.project.id, "race.pdf", len(PDF))).json()
    assert (await put_bytes(client, target, PDF)).status_code == 200
    used = await storage_used(world.workspace.id)
    first, second = await asyncio.gather(
        complete(client, headers, target["uploadId"]),
        complete(client, headers, target["uploadId"]),
    )
    assert first.status_code == second.status_code == 200, (first.text, second.text)
    assert first.json() == second.json()
    assert await storage_used(world.workspace.id) == used + len(PDF)


async def test_uploads_of_one_new_name_completing_together_make_one_file(client, world):
    import asyncio

    headers, project = world.member.headers, world.project
    targets = []
    for n in range(6):
        data = PDF + b"%d" % n
        target = (await presign(client, headers, project.id, "Race.pdf", len(data))).json()
        assert (await put_bytes(client, target, data)).status_code == 200
        targets.append(target)
    files_before, versions_before = await count_files(project.id)
    responses = await asyncio.gather(
        *(complete(client, headers, target["uploadId"]) for target in targets)
    )
    assert [r.status_code for r in responses] == [200] * 6, [r.text for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1
    assert sorted(r.json()["version"] for r in responses) == [1, 2, 3, 4, 5, 6]
    assert await count_files(project.id) == (files_before + 1, versions_before + 6)
