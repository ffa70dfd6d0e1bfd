"""Managing a project's webhooks through HTTP: who may, what is refused, the secret shown
once and kept encrypted, rotation, pausing and re-enabling, deletion."""

from __future__ import annotations

import base64
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Webhook
from tests.factories import World, audit_entries, create_api_key, key_headers, make_world
from tests.webhook.receiver import Receiver
from tests.webhook.support import create_webhook, url

PUBLIC = "https://erp.example.com/plumbline/webhooks"  # never resolved here: saved, not sent to


async def _count(world: World) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(Webhook.project_id == world.project.id)
        return int((await db.execute(query)).scalar_one())


async def test_an_admin_creates_a_webhook_and_sees_its_secret_once(
    client: httpx.AsyncClient, world: World
) -> None:
    made = await create_webhook(client, world, PUBLIC, description="ERP sync")
    secret = made.pop("secret")
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    assert made["url"] == PUBLIC and made["events"] == ["issue.created", "issue.updated"]
    assert (made["active"], made["description"], made["createdBy"]) == (
        True,
        "ERP sync",
        world.admin.id,
    )
    one = await client.get(url(world, f"/{made['id']}"), headers=world.admin.headers)
    listed = await client.get(url(world), headers=world.owner.headers)
    assert one.json() == made and listed.json() == [made]  # never the secret again
    async with database.sessionmaker() as db:
        stored = await db.get(Webhook, made["id"])
    assert stored is not None and secret[6:] not in stored.secret  # encrypted at rest
    [entry] = await audit_entries(made["id"])
    assert entry.action == "webhook.created" and entry.changes["url"] == [None, PUBLIC]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": PUBLIC, "events": ["issue.exploded"]}, "events.0"),
        ({"url": PUBLIC, "events": []}, "events"),
        ({"url": "not a url", "events": ["issue.created"]}, "url"),
        ({"url": "ftp://erp.example.com/in", "events": ["issue.created"]}, "url"),
        ({"url": "https://user:pw@erp.example.com/in", "events": ["issue.created"]}, "url"),
        ({"url": "http://127.0.0.1:8000/in", "events": ["issue.created"]}, "url"),
        ({"url": "http://10.1.2.3/in", "events": ["issue.created"]}, "url"),
        ({"url": "http://192.168.0.10/in", "events": ["issue.created"]}, "url"),
        ({"url": "http://[::1]/in", "events": ["issue.created"]}, "url"),
        ({"url": "http://[fd12::1]/in", "events": ["issue.created"]}, "url"),
        ({"url": "http://[::ffff:10.0.0.1]/in", "events": ["issue.created"]}, "url"),
        ({"url": "http://169.254.169.254/latest/meta-data", "events": ["issue.created"]}, "url"),
        ({"url": "http://0.0.0.0/in", "events": ["issue.created"]}, "url"),
        ({"url": "http://224.0.0.1/in", "events": ["issue.created"]}, "url"),
    ],
)
async def test_bad_input_is_a_400_and_writes_nothing(
    client: httpx.AsyncClient, world: World, body: dict[str, object], field: str
) -> None:
    response = await client.post(url(world), json=body, headers=world.admin.headers)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert [d["field"] for d in response.json()["details"]] == [field]
    assert await _count(world) == 0


async def test_a_name_that_resolves_to_a_private_address_is_refused_at_save(
    client: httpx.AsyncClient, world: World
) -> None:
    with Receiver() as receiver:
        target = f"http://localhost:{receiver.port}/hooks"
        response = await client.post(
            url(world),
            json={"url": target, "events": ["issue.created"]},
            headers=world.admin.headers,
        )
    assert response.status_code == 400
    message = response.json()["details"][0]["message"]
    assert message.startswith("must be a public address: localhost resolves to")
    assert "loopback" in message and await _count(world) == 0


async def test_allowing_private_targets_never_allows_the_metadata_service(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    await create_webhook(client, world, "http://10.1.2.3/in")
    for target in ("http://169.254.169.254/", "http://[fd00:ec2::254]/"):
        response = await client.post(
            url(world),
            json={"url": target, "events": ["issue.created"]},
            headers=world.admin.headers,
        )
        assert response.status_code == 400
        assert "cloud metadata" in response.json()["details"][0]["message"]
    assert await _count(world) == 1


async def test_admins_by_session_and_keys_with_the_scopes_manage_webhooks(
    client: httpx.AsyncClient, world: World
) -> None:
    body = {"url": PUBLIC, "events": ["rfi.answered"]}
    for who in (world.manager, world.member):
        refused = await client.post(url(world), json=body, headers=who.headers)
        assert refused.status_code == 403
        assert (await client.get(url(world), headers=who.headers)).status_code == 403
    reader, _ = await create_api_key(world.project, ["webhooks:read"])
    writer, _ = await create_api_key(world.project, ["webhooks:write"])
    issues, _ = await create_api_key(world.project, ["issues:write", "issues:read"])
    scoped = await client.post(url(world), json=body, headers=key_headers(reader))
    assert scoped.status_code == 403
    assert scoped.json()["error"] == "API key missing scope: webhooks:write"
    assert (await client.get(url(world), headers=key_headers(issues))).status_code == 403
    made = await client.post(url(world), json=body, headers=key_headers(writer))
    assert made.status_code == 200 and made.json()["createdBy"] is None
    listed = await client.get(url(world), headers=key_headers(reader))
    assert [w["id"] for w in listed.json()] == [made.json()["id"]]
    # Another project's webhook is not found, by session or by key.
    other = await make_world()
    theirs = await create_webhook(client, other, PUBLIC)
    for headers in (world.admin.headers, key_headers(reader)):
        missing = await client.get(url(world, f"/{theirs['id']}"), headers=headers)
        assert missing.status_code == 404 and missing.json()["code"] == "NOT_FOUND"
    foreign = await client.get(url(other), headers=key_headers(reader))
    assert foreign.status_code == 403 and foreign.json()["code"] == "API_KEY_PROJECT"


async def test_a_webhook_is_changed_paused_re_enabled_and_deleted(
    client: httpx.AsyncClient, world: World
) -> None:
    made = await create_webhook(client, world, PUBLIC)
    path = url(world, f"/{made['id']}")
    changed = await client.patch(
        path,
        json={"events": ["rfi.answered", "rfi.answered"], "description": "RFIs only"},
        headers=world.admin.headers,
    )
    assert changed.status_code == 200
    assert (changed.json()["events"], changed.json()["description"]) == (
        ["rfi.answered"],
        "RFIs only",
    )
    for refused in ({"url": "http://127.0.0.1/in"}, {"events": ["nope"]}, {"active": None}):
        answer = await client.patch(path, json=refused, headers=world.admin.headers)
        assert answer.status_code == 400, refused
    paused = await client.patch(path, json={"active": False}, headers=world.admin.headers)
    assert paused.json()["active"] is False
    resumed = await client.patch(path, json={"active": True}, headers=world.admin.headers)
    assert resumed.json()["active"] is True and resumed.json()["url"] == PUBLIC
    actions = [entry.action for entry in await audit_entries(made["id"])]
    assert actions == ["webhook.created", *["webhook.updated"] * 3]
    deleted = await client.delete(path, headers=world.admin.headers)
    assert deleted.json() == {"ok": True}
    assert (await client.get(path, headers=world.admin.headers)).status_code == 404
    assert (await client.delete(path, headers=world.admin.headers)).status_code == 404


async def test_rotating_the_secret_shows_the_new_one_once_and_keeps_the_old_for_a_day(
    client: httpx.AsyncClient, world: World
) -> None:
    now = clock.now()
    clock.set_now(now)
    made = await create_webhook(client, world, PUBLIC)
    rotated = await client.post(
        url(world, f"/{made['id']}/rotate-secret"), headers=world.admin.headers
    )
    assert rotated.status_code == 200
    secret = rotated.json()["secret"]
    assert secret.startswith("whsec_") and secret != made["secret"]
    assert rotated.json()["previousSecretExpiresAt"] == clock.iso(now + timedelta(hours=24))
    one = await client.get(url(world, f"/{made['id']}"), headers=world.admin.headers)
    assert "secret" not in one.json()
    [_, entry] = await audit_entries(made["id"])
    assert entry.action == "webhook.secret_rotated"


async def test_a_project_has_at_most_twenty_webhooks(
    client: httpx.AsyncClient, world: World
) -> None:
    for n in range(20):
        await create_webhook(client, world, f"{PUBLIC}/{n}")
    refused = await client.post(
        url(world), json={"url": PUBLIC, "events": ["issue.created"]}, headers=world.admin.headers
    )
    assert refused.status_code == 409 and await _count(world) == 20
