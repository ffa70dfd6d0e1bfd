"""Reference photos: presign -> PUT -> complete, limits, listing, removal."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import httpx

from tests.factories import QueryCounter, World, create_api_key, key_headers, make_world
from tests.issue.helpers import create_issue, issues_url

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


async def _add_photo(
    client: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    name: str = "crack.png",
    data: bytes = PNG,
) -> dict[str, Any]:
    upload_id = await _presigned_and_uploaded(client, url, headers, name, data)
    complete = await _complete(client, url, headers, upload_id, hashlib.sha256(data).hexdigest())
    assert complete.status_code == 200, complete.text
    photo: dict[str, Any] = complete.json()
    return photo


async def _presigned_and_uploaded(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], name: str, data: bytes = PNG
) -> str:
    presign = await client.post(
        f"{url}/reference-photos/presign",
        json={"fileName": name, "contentType": "image/png", "sizeBytes": len(data)},
        headers=headers,
    )
    assert presign.status_code == 200, presign.text
    target = presign.json()
    put = await client.request(
        target["method"], target["uploadUrl"], content=data, headers=target["headers"]
    )
    assert put.status_code < 300, put.text
    upload_id: str = target["uploadId"]
    return upload_id


async def _complete(
    client: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    upload_id: str,
    sha256: str | None = None,
) -> httpx.Response:
    body = {"uploadId": upload_id} if sha256 is None else {"uploadId": upload_id, "sha256": sha256}
    return await client.post(f"{url}/reference-photos/complete", json=body, headers=headers)


async def test_photo_upload_round_trip(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    photo = await _add_photo(client, url, world.member.headers)
    assert photo["fileName"] == "crack.png" and photo["contentType"] == "image/png"
    assert photo["sizeBytes"] == len(PNG)

    read = (await client.get(url, headers=world.member.headers)).json()
    [listed_photo] = read["referencePhotos"]
    assert listed_photo["id"] == photo["id"]
    assert read["updatedAt"] >= issue["updatedAt"]
    content = await client.get(listed_photo["url"])
    assert content.status_code == 200 and content.content == PNG
    listed = (await client.get(issues_url(world.project.id), headers=world.member.headers)).json()
    assert [p["id"] for p in listed[0]["referencePhotos"]] == [photo["id"]]

    removed = await client.delete(
        f"{url}/reference-photos/{photo['id']}", headers=world.member.headers
    )
    assert removed.status_code == 200 and removed.json() == {"ok": True}
    assert (await client.get(url, headers=world.member.headers)).json()["referencePhotos"] == []
    again = await client.delete(
        f"{url}/reference-photos/{photo['id']}", headers=world.member.headers
    )
    assert again.status_code == 404


async def test_photo_limits(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = f"{issues_url(world.project.id)}/{issue['id']}/reference-photos/presign"
    pdf = await client.post(
        url,
        json={"fileName": "plan.pdf", "contentType": "application/pdf", "sizeBytes": 100},
        headers=world.member.headers,
    )
    assert pdf.status_code == 415
    assert pdf.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    big = await client.post(
        url,
        json={"fileName": "a.jpg", "contentType": "image/jpeg", "sizeBytes": 15 * 1024 * 1024 + 1},
        headers=world.member.headers,
    )
    assert big.status_code == 413
    for body in ({}, {"fileName": "a.png", "contentType": "image/png", "sizeBytes": 0}):
        assert (await client.post(url, json=body, headers=world.member.headers)).status_code == 400


async def test_thirteenth_photo_is_refused(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    for i in range(12):
        await _add_photo(client, url, world.member.headers, name=f"p{i}.png")
    refused = await client.post(
        f"{url}/reference-photos/presign",
        json={"fileName": "p13.png", "contentType": "image/png", "sizeBytes": 10},
        headers=world.member.headers,
    )
    assert refused.status_code == 409
    assert refused.json()["code"] == "LIMIT_REACHED"
    read = (await client.get(url, headers=world.member.headers)).json()
    assert len(read["referencePhotos"]) == 12


async def test_photo_routes_check_access(client: httpx.AsyncClient, world: World) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = f"{issues_url(world.project.id)}/{issue['id']}/reference-photos/presign"
    body = {"fileName": "a.png", "contentType": "image/png", "sizeBytes": 10}
    assert (await client.post(url, json=body)).status_code == 401
    reader, _ = await create_api_key(world.project, ["issues:read"])
    assert (await client.post(url, json=body, headers=key_headers(reader))).status_code == 403
    stranger = await make_world()
    assert (await client.post(url, json=body, headers=stranger.owner.headers)).status_code == 404
    writer, _ = await create_api_key(world.project, ["issues:write"])
    photo = await _add_photo(
        client, f"{issues_url(world.project.id)}/{issue['id']}", key_headers(writer)
    )
    assert photo["createdBy"] is None
    missing = f"{issues_url(world.project.id)}/{'0' * 32}/reference-photos/presign"
    assert (await client.post(missing, json=body, headers=world.member.headers)).status_code == 404


async def test_list_with_photos_runs_a_fixed_number_of_queries(
    client: httpx.AsyncClient, world: World
) -> None:
    first = await create_issue(client, world.project.id, world.member.headers)
    await _add_photo(client, f"{issues_url(world.project.id)}/{first['id']}", world.member.headers)
    with QueryCounter() as one:
        await client.get(issues_url(world.project.id), headers=world.member.headers)
    for _ in range(5):
        made = await create_issue(client, world.project.id, world.member.headers)
        await _add_photo(
            client, f"{issues_url(world.project.id)}/{made['id']}", world.member.headers
        )
    with QueryCounter() as many:
        listed = await client.get(issues_url(world.project.id), headers=world.member.headers)
    assert all(len(i["referencePhotos"]) == 1 for i in listed.json())
    assert len(listed.json()) == 6
    assert one.count == many.count


async def test_uploads_started_under_the_limit_stop_at_twelve(
    client: httpx.AsyncClient, world: World
) -> None:
    """Every presign happens before any completion (so each passes the presign count); the
    completions still record twelve photos and refuse the thirteenth with nothing written."""
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    headers = world.member.headers
    uploads = [await _presigned_and_uploaded(client, url, headers, f"p{i}.png") for i in range(13)]
    for upload_id in uploads[:12]:
        assert (await _complete(client, url, headers, upload_id)).status_code == 200
    refused = await _complete(client, url, headers, uploads[12])
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "LIMIT_REACHED"
    read = (await client.get(url, headers=headers)).json()
    assert len(read["referencePhotos"]) == 12
    assert uploads[12] not in {p.get("uploadId") for p in read["referencePhotos"]}


async def test_concurrent_completions_never_pass_the_limit(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    headers = world.member.headers
    uploads = [await _presigned_and_uploaded(client, url, headers, f"p{i}.png") for i in range(15)]
    responses = await asyncio.gather(*(_complete(client, url, headers, u) for u in uploads))
    codes = sorted(r.status_code for r in responses)
    assert codes == [200] * 12 + [409] * 3, [r.text for r in responses]
    read = (await client.get(url, headers=headers)).json()
    assert len(read["referencePhotos"]) == 12
