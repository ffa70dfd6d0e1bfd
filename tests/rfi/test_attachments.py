"""POST /projects/{p}/rfi/{id}/attachments/presign + PUT + /complete: any type, at most 25 MB."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx

from tests.factories import World, create_api_key, external, key_headers, make_world
from tests.rfi.helpers import create_rfi, patch_rfi, post_message, rfi_url

MB = 1024 * 1024


async def _presign(
    client: httpx.AsyncClient, rfi: dict[str, Any], headers: dict[str, str], **fields: Any
) -> httpx.Response:
    body = {"fileName": "detail.pdf", "contentType": "application/pdf", "sizeBytes": 11, **fields}
    return await client.post(
        rfi_url(rfi["projectId"], rfi["id"], "attachments", "presign"), json=body, headers=headers
    )


async def _upload(
    client: httpx.AsyncClient,
    rfi: dict[str, Any],
    headers: dict[str, str],
    data: bytes,
    file_name: str,
    content_type: str,
) -> dict[str, Any]:
    presigned = await _presign(
        client, rfi, headers, fileName=file_name, contentType=content_type, sizeBytes=len(data)
    )
    assert presigned.status_code == 200, presigned.text
    target = presigned.json()
    put = await client.request(
        target["method"], target["uploadUrl"], content=data, headers=target["headers"]
    )
    assert put.status_code == 200, put.text
    completed = await client.post(
        rfi_url(rfi["projectId"], rfi["id"], "attachments", "complete"),
        json={"uploadId": target["uploadId"], "sha256": hashlib.sha256(data).hexdigest()},
        headers=headers,
    )
    assert completed.status_code == 200, completed.text
    result: dict[str, Any] = completed.json()
    return result


async def test_presign_put_complete_and_read_back(client: httpx.AsyncClient, world: World) -> None:
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    data = b"%PDF-1.4 hi"
    attachment = await _upload(
        client, rfi, world.member.headers, data, "detail.pdf", "application/pdf"
    )
    assert attachment["fileName"] == "detail.pdf" and attachment["sizeBytes"] == len(data)
    assert attachment["contentType"] == "application/pdf"
    assert attachment["createdBy"] == world.member.id

    # Any type: one the file library does not know is kept, as opaque bytes.
    script = b"<html><script>alert(1)</script></html>"
    odd = await _upload(client, rfi, world.member.headers, script, "page.html", "text/html")
    assert odd["contentType"] == "application/octet-stream"
    model = await _upload(client, rfi, world.member.headers, b"\x00\x01", "model.xyz", "")
    assert model["contentType"] == "application/octet-stream"

    read = await client.get(rfi_url(world.project.id, rfi["id"]), headers=world.manager.headers)
    listed = read.json()["attachments"]
    assert [a["id"] for a in listed] == [attachment["id"], odd["id"], model["id"]]
    content = await client.get(listed[0]["url"])
    assert content.status_code == 200 and content.content == data
    served = await client.get(listed[1]["url"])
    assert served.headers["content-type"].startswith("application/octet-stream")
    rows = await client.get(rfi_url(world.project.id), headers=world.manager.headers)
    [row] = [r for r in rows.json() if r["id"] == rfi["id"]]
    assert [a["id"] for a in row["attachments"]] == [attachment["id"], odd["id"], model["id"]]
    assert read.json()["updatedAt"] >= rfi["updatedAt"]


async def test_attachment_limits_and_refusals(client: httpx.AsyncClient, world: World) -> None:
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    too_big = await _presign(client, rfi, world.member.headers, sizeBytes=26 * MB)
    assert too_big.status_code == 413 and too_big.json()["code"] == "PAYLOAD_TOO_LARGE"
    exactly = await _presign(client, rfi, world.member.headers, sizeBytes=25 * MB)
    assert exactly.status_code == 200, exactly.text
    for body in ({"fileName": ""}, {"sizeBytes": -1}, {"sizeBytes": "big"}):
        response = await _presign(client, rfi, world.member.headers, **body)
        assert response.status_code == 400, body

    # Completing without uploading the bytes, or an unknown upload, is refused.
    target = (await _presign(client, rfi, world.member.headers)).json()
    complete_url = rfi_url(world.project.id, rfi["id"], "attachments", "complete")
    missing = await client.post(
        complete_url, json={"uploadId": target["uploadId"]}, headers=world.member.headers
    )
    assert missing.status_code == 409 and missing.json()["code"] == "UPLOAD_MISSING"
    unknown = await client.post(
        complete_url, json={"uploadId": "nope"}, headers=world.member.headers
    )
    assert unknown.status_code == 404
    # Another RFI's upload does not complete here.
    other_rfi = await create_rfi(client, world.project.id, world.member.headers)
    elsewhere = await client.post(
        rfi_url(world.project.id, other_rfi["id"], "attachments", "complete"),
        json={"uploadId": target["uploadId"]},
        headers=world.member.headers,
    )
    assert elsewhere.status_code == 404

    assert (await _presign(client, rfi, {})).status_code == 401
    other = await make_world()
    assert (await _presign(client, rfi, other.owner.headers)).status_code == 404
    missing_rfi = {"projectId": world.project.id, "id": "nope"}
    assert (await _presign(client, missing_rfi, world.member.headers)).status_code == 404
    viewer = await external(world, "CLIENT")
    assert (await _presign(client, rfi, viewer.headers)).status_code == 403

    read_only, _ = await create_api_key(world.project, ["rfi:read"])
    refused = await _presign(client, rfi, key_headers(read_only))
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: rfi:write"
    writer, _ = await create_api_key(world.project, ["rfi:read", "rfi:write"])
    keyed = await _upload(client, rfi, key_headers(writer), b"abc", "notes.txt", "text/plain")
    assert keyed["contentType"] == "text/plain"


async def test_closed_rfi_takes_no_attachments(client: httpx.AsyncClient, world: World) -> None:
    rfi = await create_rfi(
        client, world.project.id, world.member.headers, assigneeIds=[world.admin.id]
    )
    await patch_rfi(client, rfi, world.member, status="IN_REVIEW")
    message = await post_message(client, rfi, world.admin)
    await patch_rfi(client, rfi, world.admin, status="ANSWERED", answerMessageId=message["id"])
    assert (await patch_rfi(client, rfi, world.member, status="CLOSED")).status_code == 200
    response = await _presign(client, rfi, world.member.headers)
    assert response.status_code == 409
