import hashlib

import httpx

from tests.factories import create_api_key, external, key_headers, make_world
from tests.punch.helpers import url

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


async def presign(client, project, item_id, headers, **overrides):
    body = {"fileName": "crack.png", "contentType": "image/png", "sizeBytes": len(PNG)}
    body.update(overrides)
    return await client.post(
        url(project, f"/{item_id}/reference-photos/presign"), json=body, headers=headers
    )


async def add_photo(client: httpx.AsyncClient, project, item_id, headers) -> dict:
    target = await presign(client, project, item_id, headers)
    assert target.status_code == 200, target.text
    t = target.json()
    put = await client.request(t["method"], t["uploadUrl"], content=PNG, headers=t["headers"])
    assert put.status_code == 200, put.text
    done = await client.post(
        url(project, f"/{item_id}/reference-photos/complete"),
        json={"uploadId": t["uploadId"], "sha256": hashlib.sha256(PNG).hexdigest()},
        headers=headers,
    )
    assert done.status_code == 200, done.text
    return done.json()


async def new_item(client, world, **body):
    response = await client.post(
        url(world.project), json={"title": "Photo me", **body}, headers=world.member.headers
    )
    return response.json()


async def test_presign_put_complete_shows_the_photo(client, world):
    item = await new_item(client, world)
    done = await add_photo(client, world.project, item["id"], world.member.headers)
    assert done["id"] == item["id"]
    [photo] = done["referencePhotos"]
    assert photo["fileName"] == "crack.png"
    assert photo["contentType"] == "image/png"
    assert photo["sizeBytes"] == len(PNG)
    got = await client.get(photo["url"])
    assert got.status_code == 200 and got.content == PNG

    fetched = (
        await client.get(url(world.project, f"/{item['id']}"), headers=world.member.headers)
    ).json()
    assert [p["id"] for p in fetched["referencePhotos"]] == [photo["id"]]
    listed = (await client.get(url(world.project), headers=world.member.headers)).json()
    assert [p["id"] for p in listed[0]["referencePhotos"]] == [photo["id"]]

    photo_url = url(world.project, f"/{item['id']}/reference-photos/{photo['id']}")
    removed = await client.delete(photo_url, headers=world.member.headers)
    assert removed.status_code == 200 and removed.json() == {"ok": True}
    fetched = (
        await client.get(url(world.project, f"/{item['id']}"), headers=world.member.headers)
    ).json()
    assert fetched["referencePhotos"] == [] and fetched["updatedAt"] > done["updatedAt"]
    assert (await client.delete(photo_url, headers=world.member.headers)).status_code == 404


async def test_ninth_photo_is_refused(client, world):
    item = await new_item(client, world)
    for _ in range(8):
        await add_photo(client, world.project, item["id"], world.member.headers)
    refused = await presign(client, world.project, item["id"], world.member.headers)
    assert refused.status_code == 409
    assert refused.json()["code"] == "LIMIT_REACHED"
    fetched = (
        await client.get(url(world.project, f"/{item['id']}"), headers=world.member.headers)
    ).json()
    assert len(fetched["referencePhotos"]) == 8


async def test_only_images_up_to_15_mb(client, world):
    item = await new_item(client, world)
    pdf = await presign(
        client,
        world.project,
        item["id"],
        world.member.headers,
        fileName="spec.pdf",
        contentType="application/pdf",
    )
    assert pdf.status_code == 415
    assert pdf.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    heif = await presign(  # images of the issues' four kinds only
        client, world.project, item["id"], world.member.headers, contentType="image/heif"
    )
    assert heif.status_code == 415
    for name, content_type in (
        ("a.jpg", "image/jpeg"),
        ("a.webp", "image/webp"),
        ("a.heic", "image/heic"),
    ):
        ok = await presign(
            client,
            world.project,
            item["id"],
            world.member.headers,
            fileName=name,
            contentType=content_type,
        )
        assert ok.status_code == 200, ok.text
    too_big = await presign(
        client, world.project, item["id"], world.member.headers, sizeBytes=15 * 1024 * 1024 + 1
    )
    assert too_big.status_code == 413
    bad = await presign(client, world.project, item["id"], world.member.headers, sizeBytes=0)
    assert bad.status_code == 400


async def test_photo_routes_follow_item_visibility(client, world):
    contractor = await external(world, "CONTRACTOR")
    others = await new_item(client, world)
    response = await presign(client, world.project, others["id"], contractor.headers)
    assert response.status_code == 404
    theirs = await new_item(client, world, assigneeIds=[contractor.id])
    done = await add_photo(client, world.project, theirs["id"], contractor.headers)
    assert len(done["referencePhotos"]) == 1

    other = await make_world()
    response = await presign(client, world.project, theirs["id"], other.owner.headers)
    assert response.status_code == 404
    response = await client.post(
        url(world.project, f"/{theirs['id']}/reference-photos/complete"),
        json={"uploadId": "nope"},
        headers=world.member.headers,
    )
    assert response.status_code == 404
    assert (await presign(client, world.project, theirs["id"], {})).status_code == 401


async def test_api_key_needs_write_scope_for_photos(client, world):
    item = await new_item(client, world)
    read_only, _ = await create_api_key(world.project, ["punch:read"])
    response = await presign(client, world.project, item["id"], key_headers(read_only))
    assert response.status_code == 403
    assert response.json()["error"] == "API key missing scope: punch:write"
    writer, _ = await create_api_key(world.project, ["punch:write"])
    done = await add_photo(client, world.project, item["id"], key_headers(writer))
    assert len(done["referencePhotos"]) == 1
