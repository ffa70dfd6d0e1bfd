"""The occupant portal through HTTP: links, the reporting journey from the receipt e-mail's
tracking link, photos with the photo token, rate limits, refusals and access."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Issue, Notification, OccupantLink, OccupantRequest
from tests.factories import (
    QueryCounter,
    World,
    audit_entries,
    create_api_key,
    create_asset,
    key_headers,
    link_in,
    mail_text,
    make_world,
    read_mails,
    set_project,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def links_url(world: World) -> str:
    return f"/api/v1/projects/{world.project.id}/om/occupant-links"


def portal(token: str, suffix: str = "") -> str:
    return f"/api/v1/occupant/{token}{suffix}"


async def ops_world() -> World:
    world = await make_world()
    await set_project(world.project.id, operations_mode=True)
    return world


async def make_link(client: httpx.AsyncClient, world: World, **body: Any) -> dict[str, Any]:
    response = await client.post(
        links_url(world), json={"label": "Lobby poster"} | body, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    link: dict[str, Any] = response.json()
    return link


def request_body(email: str, **body: Any) -> dict[str, Any]:
    return {
        "title": "Leaking tap in the 3rd floor kitchen",
        "description": "Water drips from the hot tap all day.",
        "reporterName": "Riley Reporter",
        "reporterEmail": email,
    } | body


async def submit(client: httpx.AsyncClient, token: str, email: str, **body: Any) -> dict[str, Any]:
    response = await client.post(portal(token, "/submit"), json=request_body(email, **body))
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def issue_count(project_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(Issue.project_id == project_id)
        return int((await db.execute(query)).scalar_one())


async def notifications_of(user_id: str, kind: str) -> list[Notification]:
    async with database.sessionmaker() as db:
        query = select(Notification).where(
            Notification.user_id == user_id, Notification.kind == kind
        )
        return list((await db.execute(query)).scalars())


async def add_photo(
    client: httpx.AsyncClient, token: str, issue_id: str, photo_token: str, data: bytes = PNG
) -> httpx.Response:
    url = portal(token, f"/issues/{issue_id}/reference-photos")
    presign = await client.post(
        f"{url}/presign",
        json={
            "fileName": "tap.png",
            "contentType": "image/png",
            "sizeBytes": len(data),
            "photoToken": photo_token,
        },
    )
    if presign.status_code != 200:
        return presign
    target = presign.json()
    put = await client.request(
        target["method"], target["uploadUrl"], content=data, headers=target["headers"]
    )
    assert put.status_code < 300, put.text
    return await client.post(
        f"{url}/complete",
        json={
            "uploadId": target["uploadId"],
            "sha256": hashlib.sha256(data).hexdigest(),
            "photoToken": photo_token,
        },
    )


async def test_the_occupant_journey_from_link_to_tracking_page(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    # The link to print (or put in a QR code) is the reporting page.
    assert link["url"] == f"{settings.public_url}/portal/occupant/{link['token']}"
    token = link["token"]

    meta = await client.get(portal(token, "/meta"))
    assert meta.status_code == 200, meta.text
    assert meta.json() == {
        "projectId": world.project.id,
        "projectName": world.project.name,
        "workspaceName": world.workspace.name,
        "headline": f"Report a problem at {world.project.name}",
        "asset": None,
    }

    email = f"riley-{new_id()}@example.com"
    answer = await submit(client, token, email, location="Kitchen, level 3")
    assert answer["ok"] is True and answer["photoToken"]
    assert set(answer) == {"ok", "issueId", "trackingUrl", "photoToken", "photoTokenExpiresAt"}

    # The request is an OCCUPANT issue the team sees, written by "public".
    issue = await client.get(
        f"/api/v1/projects/{world.project.id}/issues/{answer['issueId']}",
        headers=world.member.headers,
    )
    assert issue.status_code == 200
    assert issue.json()["issueKind"] == "OCCUPANT"
    assert issue.json()["location"] == "Kitchen, level 3"
    assert issue.json()["createdBy"] is None
    [created] = await audit_entries(answer["issueId"])
    assert created.action == "issue.created" and created.actor == "public"

    # Managers are told; members are not.
    for manager in (world.owner, world.admin, world.manager):
        [note] = await notifications_of(manager.user.id, "OCCUPANT_REQUEST")
        assert note.href == f"/projects/{world.project.id}/issues/{answer['issueId']}"
    assert await notifications_of(world.member.user.id, "OCCUPANT_REQUEST") == []

    # The reporter's receipt carries the tracking page; the answer, its JSON twin.
    [receipt] = read_mails(outbox, to=email)
    tracking_page = link_in(receipt)
    tracking = tracking_page.removeprefix(f"{settings.public_url}/portal/requests/")
    assert tracking != tracking_page and "/" not in tracking
    tracking_url = answer["trackingUrl"]
    assert tracking_url == f"{settings.public_url}/api/v1/occupant/requests/{tracking}"
    tracked = await client.get(tracking_url)
    assert tracked.status_code == 200, tracked.text
    assert tracked.json()["status"] == "OPEN" and tracked.json()["updates"] == []
    assert tracked.json()["title"] == "Leaking tap in the 3rd floor kitchen"

    # A photo through the photo token lands on the issue.
    photo = await add_photo(client, token, answer["issueId"], answer["photoToken"])
    assert photo.status_code == 200, photo.text
    issue = await client.get(
        f"/api/v1/projects/{world.project.id}/issues/{answer['issueId']}",
        headers=world.member.headers,
    )
    assert [p["id"] for p in issue.json()["referencePhotos"]] == [photo.json()["id"]]

    # Staff work it; the page shows each status change and nothing about who did it.
    await client.post(
        f"/api/v1/projects/{world.project.id}/issues/{answer['issueId']}/comments",
        json={"body": "Internal: plumber booked, Max Manager to follow up"},
        headers=world.manager.headers,
    )
    for status in ("IN_PROGRESS", "RESOLVED"):
        patched = await client.patch(
            f"/api/v1/projects/{world.project.id}/issues/{answer['issueId']}",
            json={"status": status},
            headers=world.manager.headers,
        )
        assert patched.status_code == 200, patched.text
    tracked = await client.get(tracking_url)
    assert tracked.json()["status"] == "RESOLVED"
    assert [u["status"] for u in tracked.json()["updates"]] == ["IN_PROGRESS", "RESOLVED"]
    text = tracked.text
    for secret in ("Max Manager", "plumber", world.manager.user.id, email, token):
        assert secret not in text


async def test_the_receipt_escapes_what_the_reporter_wrote(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    email = f"x-{new_id()}@example.com"
    script = "<script>alert(1)</script>"
    answer = await submit(client, link["token"], email, title=f"Broken {script}")
    [receipt] = read_mails(outbox, to=email)
    html_part = receipt.get_body(preferencelist=("html",))
    assert html_part is not None
    assert script not in str(html_part.get_content())
    assert "&lt;script&gt;" in str(html_part.get_content())
    assert script in mail_text(receipt)  # the text part is plain text
    tracked = await client.get(answer["trackingUrl"])
    assert tracked.json()["title"] == f"Broken {script}"  # stored as written, JSON-encoded


async def test_links_show_their_token_once_and_revoked_or_expired_links_stop(
    client: httpx.AsyncClient,
) -> None:
    world = await ops_world()
    clock.set_now(NOW)
    lasting = await make_link(client, world, label="Plant room")
    short = await make_link(client, world, label="Lift lobby", expiresAt="2026-11-24T09:00:00Z")

    listed = await client.get(links_url(world), headers=world.manager.headers)
    assert listed.status_code == 200
    assert [link["label"] for link in listed.json()] == ["Lift lobby", "Plant room"]
    assert "token" not in listed.text and lasting["token"] not in listed.text

    revoked = await client.delete(
        f"{links_url(world)}/{lasting['id']}", headers=world.manager.headers
    )
    assert revoked.status_code == 200 and revoked.json() == {"ok": True}
    for path in ("/meta",):
        assert (await client.get(portal(lasting["token"], path))).status_code == 404
    gone = await client.post(portal(lasting["token"], "/submit"), json=request_body("a@b.co"))
    assert gone.status_code == 404 and gone.json()["code"] == "NOT_FOUND"
    assert [
        link["label"]
        for link in (await client.get(links_url(world), headers=world.manager.headers)).json()
    ] == ["Lift lobby"]
    again = await client.delete(
        f"{links_url(world)}/{lasting['id']}", headers=world.manager.headers
    )
    assert again.status_code == 404

    assert (await client.get(portal(short["token"], "/meta"))).status_code == 200
    clock.set_now(NOW + timedelta(days=1))
    expired = await client.get(portal(short["token"], "/meta"))
    assert expired.status_code == 410 and expired.json()["code"] == "EXPIRED"
    assert (await client.get(portal("not-a-token", "/meta"))).status_code == 404

    past = await client.post(
        links_url(world),
        json={"label": "Old", "expiresAt": "2026-01-01T00:00:00Z"},
        headers=world.manager.headers,
    )
    assert past.status_code == 400 and past.json()["details"][0]["field"] == "expiresAt"
    [entry, *_] = await audit_entries(lasting["id"])
    assert entry.action == "occupant_link.created"


async def test_twelve_submissions_a_minute_per_link_and_address(
    client: httpx.AsyncClient,
) -> None:
    world = await ops_world()
    clock.set_now(NOW)
    first, second = await make_link(client, world), await make_link(client, world)
    for n in range(12):
        await submit(client, first["token"], f"r{n}-{new_id()}@example.com")
    refused = await client.post(portal(first["token"], "/submit"), json=request_body("z@z.co"))
    assert refused.status_code == 429 and refused.json()["code"] == "RATE_LIMITED"
    assert int(refused.headers["Retry-After"]) >= 1
    assert await issue_count(world.project.id) == 12
    await submit(client, second["token"], f"other-{new_id()}@example.com")  # another link


async def test_photo_tokens_open_one_issue_for_an_hour(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    clock.set_now(NOW)
    link = await make_link(client, world)
    one = await submit(client, link["token"], f"a-{new_id()}@example.com")
    two = await submit(client, link["token"], f"b-{new_id()}@example.com")

    crossed = await add_photo(client, link["token"], two["issueId"], one["photoToken"])
    assert crossed.status_code == 404
    wrong = await add_photo(client, link["token"], one["issueId"], "made-up-token")
    assert wrong.status_code == 404
    other_link = await make_link(client, world)
    elsewhere = await add_photo(client, other_link["token"], one["issueId"], one["photoToken"])
    assert elsewhere.status_code == 404

    not_image = await client.post(
        portal(link["token"], f"/issues/{one['issueId']}/reference-photos/presign"),
        json={
            "fileName": "notes.pdf",
            "contentType": "application/pdf",
            "sizeBytes": 10,
            "photoToken": one["photoToken"],
        },
    )
    assert not_image.status_code == 415

    clock.set_now(NOW + timedelta(minutes=59))
    assert (
        await add_photo(client, link["token"], one["issueId"], one["photoToken"])
    ).status_code == 200
    clock.set_now(NOW + timedelta(hours=1))
    late = await add_photo(client, link["token"], one["issueId"], one["photoToken"])
    assert late.status_code == 410 and late.json()["code"] == "EXPIRED"


async def test_bad_submissions_are_refused_and_write_nothing(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"reporterEmail": "not-an-address"}, "reporterEmail"),
        ({"title": ""}, "title"),
        ({"title": "x" * 501}, "title"),
        ({"description": "y" * 5001}, "description"),
        ({"reporterName": ""}, "reporterName"),
        ({"location": "z" * 501}, "location"),
    ]
    for change, field in cases:
        response = await client.post(
            portal(link["token"], "/submit"), json=request_body("ok@example.com", **change)
        )
        assert response.status_code == 400, (change, response.text)
        assert response.json()["code"] == "VALIDATION_FAILED"
        assert field in {d["field"] for d in response.json()["details"]}, response.text
    missing = await client.post(portal(link["token"], "/submit"), json={"title": "Only a title"})
    assert missing.status_code == 400
    assert await issue_count(world.project.id) == 0
    async with database.sessionmaker() as db:
        query = select(func.count()).where(OccupantRequest.project_id == world.project.id)
        assert (await db.execute(query)).scalar_one() == 0


async def test_who_manages_links(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    member = await client.post(links_url(world), json={"label": "x"}, headers=world.member.headers)
    assert member.status_code == 403
    assert (await client.get(links_url(world), headers=world.member.headers)).status_code == 403

    other = await make_world()
    foreign = await client.get(links_url(world), headers=other.manager.headers)
    assert foreign.status_code == 404

    raw, _ = await create_api_key(world.project, ["om:write"])
    by_key = await client.post(links_url(world), json={"label": "Key"}, headers=key_headers(raw))
    assert by_key.status_code == 200, by_key.text
    raw_read, _ = await create_api_key(world.project, ["om:read"])
    refused = await client.post(
        links_url(world), json={"label": "Key"}, headers=key_headers(raw_read)
    )
    assert refused.status_code == 403 and refused.json()["code"] == "API_KEY_SCOPE"


async def test_the_portal_closes_with_the_module(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    link = await make_link(client, world)
    await set_project(world.project.id, operations_mode=False)
    off = await client.post(links_url(world), json={"label": "x"}, headers=world.manager.headers)
    assert off.status_code == 403 and off.json()["code"] == "MODULE_DISABLED"
    assert (await client.get(portal(link["token"], "/meta"))).status_code == 404
    await set_project(world.project.id, operations_mode=True, modules={"occupantPortal": False})
    assert (await client.get(portal(link["token"], "/meta"))).status_code == 404


async def test_link_list_runs_a_fixed_number_of_queries(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    await make_link(client, world)

    async def count() -> int:
        with QueryCounter() as counter:
            response = await client.get(links_url(world), headers=world.manager.headers)
        assert response.status_code == 200
        return counter.count

    one = await count()
    async with database.sessionmaker() as db:
        for n in range(60):
            db.add(
                OccupantLink(
                    project_id=world.project.id,
                    workspace_id=world.workspace.id,
                    label=f"Room {n}",
                    token_hash=new_id() + new_id(),
                    created_at=clock.now(),
                )
            )
        await db.commit()
    assert await count() == one


async def test_an_assets_own_link_names_it_and_prefills_requests(client: httpx.AsyncClient) -> None:
    world = await ops_world()
    asset = await create_asset(client, world, name="Lift 2", location="Core B")
    link = await make_link(client, world, label="Lift 2 QR", assetId=asset["id"])
    meta = (await client.get(portal(link["token"], "/meta"))).json()
    assert meta["headline"] == f"Report a problem with Lift 2 at {world.project.name}"
    assert meta["asset"] == {
        "id": asset["id"],
        "tag": asset["tag"],
        "name": "Lift 2",
        "location": "Core B",
    }
    answer = await submit(client, link["token"], f"lift-{new_id()}@example.com")
    issue = await client.get(
        f"/api/v1/projects/{world.project.id}/issues/{answer['issueId']}",
        headers=world.member.headers,
    )
    assert issue.json()["assetId"] == asset["id"]

    other = await ops_world()
    foreign = await create_asset(client, other)
    refused = await client.post(
        links_url(world),
        json={"label": "Wrong", "assetId": foreign["id"]},
        headers=world.manager.headers,
    )
    assert refused.status_code == 400 and refused.json()["details"][0]["field"] == "assetId"
