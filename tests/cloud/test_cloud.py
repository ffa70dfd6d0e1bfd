"""Cloud connectors end to end: the app over ASGI, each provider a stand-in server on 127.0.0.1
speaking its real OAuth and file API shapes."""

from __future__ import annotations

import gc
import hashlib
import tracemalloc
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy import select, text

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.storage import get_storage
from plumbline.models import CloudConnection, FileVersion
from tests.cloud.standin import BIG, SMALL, StandIn, big_sha256
from tests.factories import Actor, QueryCounter, audit_entries, make_world
from tests.live import free_port

PROVIDERS = ["google", "microsoft", "dropbox"]
API = "/api/v1/cloud"
# The id each provider gives the stand-in's files
IDS = {
    "google": lambda n: n,
    "microsoft": lambda n: n,
    "dropbox": lambda n: f"id:{n}",
}
EMAILS = {"google": "gina@example.com", "microsoft": "mo@example.com", "dropbox": "dee@example.com"}


async def start(client: httpx.AsyncClient, actor: Actor, provider: str, return_to: str) -> str:
    """Our authorize step: the provider URL we are sent to."""
    r = await client.get(
        f"{API}/{provider}/authorize", params={"returnTo": return_to}, headers=actor.headers
    )
    assert r.status_code == 302, r.text
    return r.headers["location"]


async def approve(location: str) -> str:
    """The user approving at the provider: the callback URL (path and query) it sends back."""
    async with httpx.AsyncClient() as browser:
        r = await browser.get(location)
    assert r.status_code == 302, r.text
    back = urlsplit(r.headers["location"])
    return f"{back.path}?{back.query}"


async def connect(
    client: httpx.AsyncClient, actor: Actor, provider: str, return_to: str = "/projects"
) -> httpx.Response:
    callback = await approve(await start(client, actor, provider, return_to))
    return await client.get(callback, headers=actor.headers)


async def stored(user_id: str, provider: str) -> CloudConnection | None:
    async with database.sessionmaker() as db:
        query = select(CloudConnection).where(
            CloudConnection.user_id == user_id, CloudConnection.provider == provider
        )
        return (await db.execute(query)).scalar_one_or_none()


async def test_unconfigured_provider_answers_503(client, world):
    assert settings.google_client_id is None
    for path in ("/google/authorize", "/google/browse"):
        method = "GET" if path.endswith("authorize") else "POST"
        r = await client.request(method, f"{API}{path}", headers=world.member.headers, json={})
        assert r.status_code == 503, r.text
        assert r.json()["code"] == "NOT_CONFIGURED"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_authorize_redirects_with_pkce_and_a_signed_state(
    client, world, provider_server: StandIn, provider
):
    location = await start(client, world.member, provider, "/projects/x")
    url = urlsplit(location)
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{provider_server.url}/{provider}/authorize"
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert query["response_type"] == "code"
    assert query["client_id"] == "standin-client"
    assert query["code_challenge_method"] == "S256"
    assert len(query["code_challenge"]) == 43  # base64url SHA-256, no padding
    assert query["redirect_uri"] == f"{settings.public_url}/api/v1/cloud/{provider}/callback"
    assert "." in query["state"]
    if provider == "dropbox":
        assert query["token_access_type"] == "offline"
    if provider == "google":
        assert query["access_type"] == "offline"
    if provider == "microsoft":
        assert "offline_access" in query["scope"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_callback_exchanges_the_code_with_the_verifier_and_seals_the_tokens(
    client, world, provider_server: StandIn, provider
):
    r = await connect(client, world.member, provider, "/projects/p1?tab=files")
    assert r.status_code == 302, r.text
    assert r.headers["location"] == "/projects/p1?tab=files"
    exchange = [
        t
        for t in provider_server.state.token_requests
        if t["provider"] == provider and t["grant_type"] == "authorization_code"
    ][-1]
    # the stand-in refused any verifier that does not hash to the challenge it was sent
    assert len(exchange["code_verifier"]) >= 43

    r = await client.get(f"{API}/connections", headers=world.member.headers)
    assert r.status_code == 200
    (row,) = r.json()
    assert row["provider"] == provider
    assert row["accountEmail"] == EMAILS[provider]
    assert row["status"] == "ACTIVE"
    assert row["connectedAt"].endswith("Z") and row["expiresAt"].endswith("Z")
    assert not any("token" in key.lower() for key in row)

    # the raw columns hold neither token
    issued = [
        a for a, (refresh, _) in provider_server.state.access.items() if a.startswith(provider)
    ]
    async with database.sessionmaker() as db:
        raw = (
            await db.execute(
                text(
                    "select access_token, refresh_token from cloud_connections "
                    "where user_id = :u and provider = :p"
                ),
                {"u": world.member.id, "p": provider},
            )
        ).one()
    access_plain = next(a for a in issued if a in provider_server.state.api_tokens)
    refresh_plain = provider_server.state.access[access_plain][0]
    assert access_plain not in raw.access_token and refresh_plain not in raw.refresh_token
    assert raw.access_token.startswith("gAAAA")  # a Fernet token
    assert [
        e.action for e in await audit_entries((await stored(world.member.id, provider)).id)
    ] == ["cloud.connected"]


async def test_tampered_expired_used_or_other_users_state_is_refused(
    client, world, provider_server: StandIn
):
    callback = await approve(await start(client, world.member, "google", "/x"))
    query = parse_qs(urlsplit(callback).query)
    code, state = query["code"][0], query["state"][0]
    path = f"{API}/google/callback"

    payload, _, signature = state.rpartition(".")
    tampered = f"{payload[:-2]}AA.{signature}"
    for bad in (tampered, f"{payload}.{signature[:-2]}xx", "nonsense"):
        r = await client.get(
            path, params={"code": code, "state": bad}, headers=world.member.headers
        )
        assert r.status_code == 400 and r.json()["code"] == "INVALID_STATE", r.text

    # another user cannot finish this user's connection
    r = await client.get(path, params={"code": code, "state": state}, headers=world.admin.headers)
    assert r.status_code == 400 and r.json()["code"] == "INVALID_STATE"
    # nor can it be used for another provider
    r = await client.get(
        f"{API}/dropbox/callback",
        params={"code": code, "state": state},
        headers=world.member.headers,
    )
    assert r.status_code == 400 and r.json()["code"] == "INVALID_STATE"

    clock.set_now(clock.now() + timedelta(minutes=11))
    r = await client.get(path, params={"code": code, "state": state}, headers=world.member.headers)
    assert r.status_code == 400 and r.json()["code"] == "STATE_EXPIRED"
    clock.set_now(None)

    r = await client.get(path, params={"code": code, "state": state}, headers=world.member.headers)
    assert r.status_code == 302
    # a state works once
    r = await client.get(path, params={"code": code, "state": state}, headers=world.member.headers)
    assert r.status_code == 400 and r.json()["code"] == "INVALID_STATE"
    assert await stored(world.admin.id, "google") is None


@pytest.mark.parametrize(
    "return_to", ["https://evil.example/", "//evil.example/x", "/\\evil.example", "projects", ""]
)
async def test_return_to_must_be_a_relative_path(client, world, provider_server, return_to):
    r = await client.get(
        f"{API}/google/authorize", params={"returnTo": return_to}, headers=world.member.headers
    )
    assert r.status_code == 400, r.text
    assert r.json()["details"][0]["field"] == "returnTo"


async def test_the_code_without_the_right_verifier_is_refused(
    client, world, provider_server: StandIn
):
    """The stand-in checks PKCE: a code whose challenge does not match the verifier we keep
    (here: another authorization's code) gets no tokens."""
    first = parse_qs(
        urlsplit(await approve(await start(client, world.member, "google", "/a"))).query
    )
    second = parse_qs(
        urlsplit(await approve(await start(client, world.member, "google", "/b"))).query
    )
    r = await client.get(
        f"{API}/google/callback",
        params={"code": first["code"][0], "state": second["state"][0]},
        headers=world.member.headers,
    )
    assert r.status_code == 400 and r.json()["code"] == "AUTHORIZATION_FAILED", r.text
    assert await stored(world.member.id, "google") is None


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_browse_pages_folders_and_open_link(client, world, provider_server, provider):
    assert (await connect(client, world.member, provider)).status_code == 302
    url, headers = f"{API}/{provider}/browse", world.member.headers
    seen: list[dict] = []
    r = await client.post(url, json={}, headers=headers)
    pages = 1
    while True:
        assert r.status_code == 200, r.text
        seen += r.json()
        cursor = r.headers.get("x-next-cursor")
        if not cursor:
            break
        assert len(r.json()) == 2
        r = await client.post(url, json={"cursor": cursor}, headers=headers)
        pages += 1
    assert pages >= 3
    by_name = {i["name"]: i for i in seen}
    assert by_name["Drawings"]["kind"] == "folder"
    assert by_name["A-101.pdf"] == {
        "id": IDS[provider]("file-a"),
        "name": "A-101.pdf",
        "kind": "file",
        "mimeType": "application/pdf",
        "sizeBytes": len(SMALL),
    }
    assert by_name["Site model.pdf"]["sizeBytes"] == BIG

    r = await client.post(url, json={"folderId": by_name["Drawings"]["id"]}, headers=headers)
    assert [i["name"] for i in r.json()] == ["S-201.pdf"]
    assert "x-next-cursor" not in r.headers

    r = await client.post(url, json={"cursor": "not-a-cursor"}, headers=headers)
    assert r.status_code == 400 and r.json()["details"][0]["field"] == "cursor"

    r = await client.post(
        f"{API}/{provider}/open-link", json={"itemId": IDS[provider]("file-a")}, headers=headers
    )
    assert r.status_code == 200, r.text
    assert r.json()["url"].startswith("https://")
    r = await client.post(
        f"{API}/{provider}/open-link", json={"itemId": IDS[provider]("missing")}, headers=headers
    )
    assert r.status_code == 404


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_tokens_are_refreshed_before_they_expire(client, world, provider_server, provider):
    provider_server.state.expires_in = 30  # within the minute we refresh ahead
    assert (await connect(client, world.member, provider)).status_code == 302
    before = await stored(world.member.id, provider)
    provider_server.state.expires_in = 3600
    refreshes = len(
        [t for t in provider_server.state.token_requests if t["grant_type"] == "refresh_token"]
    )

    r = await client.post(f"{API}/{provider}/browse", json={}, headers=world.member.headers)
    assert r.status_code == 200, r.text
    requests = provider_server.state.token_requests
    assert len([t for t in requests if t["grant_type"] == "refresh_token"]) == refreshes + 1
    after = await stored(world.member.id, provider)
    assert after.access_token != before.access_token
    assert after.expires_at - clock.now() > timedelta(minutes=50)
    # the API was called with the new token, and the refresh token kept
    used = provider_server.state.api_tokens[-1]
    assert provider_server.state.access[used][0] == requests[-1]["refresh_token"]
    assert after.refresh_token is not None

    # a token far from expiry is used as it is
    r = await client.post(f"{API}/{provider}/browse", json={}, headers=world.member.headers)
    assert r.status_code == 200
    assert len([t for t in requests if t["grant_type"] == "refresh_token"]) == refreshes + 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_revoked_refresh_token_asks_to_reconnect(client, world, provider_server, provider):
    assert (await connect(client, world.member, provider)).status_code == 302
    state = provider_server.state
    grant = next(
        g for g in reversed(state.grants.values()) if g.provider == provider and not g.revoked
    )
    state.revoke_refresh(grant.refresh)
    clock.set_now(clock.now() + timedelta(hours=2))  # the access token is past its expiry

    r = await client.post(f"{API}/{provider}/browse", json={}, headers=world.member.headers)
    assert r.status_code == 409, r.text
    assert r.json()["code"] == "RECONNECT_REQUIRED"
    # marked, although the request failed
    r = await client.get(f"{API}/connections", headers=world.member.headers)
    assert r.json()[0]["status"] == "RECONNECT_REQUIRED"
    r = await client.post(
        f"{API}/{provider}/open-link", json={"itemId": "x"}, headers=world.member.headers
    )
    assert r.status_code == 409 and r.json()["code"] == "RECONNECT_REQUIRED"
    clock.set_now(None)

    # connecting again clears it
    assert (await connect(client, world.member, provider)).status_code == 302
    r = await client.get(f"{API}/connections", headers=world.member.headers)
    assert [c["status"] for c in r.json()] == ["ACTIVE"]
    r = await client.post(f"{API}/{provider}/browse", json={}, headers=world.member.headers)
    assert r.status_code == 200


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_import_streams_a_50_mb_file_with_flat_memory(
    client, world, provider_server, provider
):
    assert (await connect(client, world.member, provider)).status_code == 302
    body = {"itemId": IDS[provider]("file-big"), "projectId": world.project.id}
    gc.collect()
    tracemalloc.start()
    try:
        r = await client.post(f"{API}/{provider}/import", json=body, headers=world.member.headers)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.status_code == 200, r.text
    result = r.json()
    assert result["name"] == "Site model.pdf"
    assert result["version"] == 1
    assert result["sizeBytes"] == BIG
    assert result["contentType"] == "application/pdf"
    assert peak < BIG // 5, f"peak {peak} bytes while importing {BIG}"

    async with database.sessionmaker() as db:
        version = await db.get(FileVersion, result["fileVersionId"])
    assert version.sha256 == big_sha256()
    assert await get_storage().head(version.storage_key) == BIG
    actions = [e.action for e in await audit_entries(result["id"])]
    assert actions == ["file.uploaded", "file.imported"]

    # the same name again: a new version of the same file
    small = {"itemId": IDS[provider]("file-a"), "projectId": world.project.id}
    first = await client.post(f"{API}/{provider}/import", json=small, headers=world.member.headers)
    again = await client.post(f"{API}/{provider}/import", json=small, headers=world.member.headers)
    assert first.status_code == again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["version"] == 2


async def test_import_refusals(client, world, provider_server):
    assert (await connect(client, world.member, "google")).status_code == 302
    url, headers = f"{API}/google/import", world.member.headers
    project = world.project.id

    r = await client.post(
        url, json={"itemId": "fld-drawings", "projectId": project}, headers=headers
    )
    assert r.status_code == 400 and r.json()["details"][0]["field"] == "itemId"
    r = await client.post(url, json={"itemId": "file-exe", "projectId": project}, headers=headers)
    assert r.status_code == 415
    r = await client.post(url, json={"itemId": "gdoc", "projectId": project}, headers=headers)
    assert r.status_code == 415
    r = await client.post(url, json={"itemId": "nope", "projectId": project}, headers=headers)
    assert r.status_code == 404
    r = await client.post(
        url, json={"itemId": "file-a", "projectId": project, "folderId": "nope"}, headers=headers
    )
    assert r.status_code == 400  # an id in a body: 400 naming it (issue 24)
    assert r.json()["details"][0]["field"] == "folderId"

    # a project of another workspace: 404, nothing read from the provider
    other = await make_world()
    r = await client.post(
        url, json={"itemId": "file-a", "projectId": other.project.id}, headers=headers
    )
    assert r.status_code == 404
    # a user who has not connected
    r = await client.post(
        url, json={"itemId": "file-a", "projectId": project}, headers=world.admin.headers
    )
    assert r.status_code == 404 and "connected" in r.json()["error"]

    async with database.sessionmaker() as db:
        count = (
            await db.execute(
                text("select count(*) from files where project_id = :p"), {"p": project}
            )
        ).scalar_one()
    assert count == 0


async def test_another_users_connection_is_invisible(client, world, provider_server):
    assert (await connect(client, world.member, "dropbox")).status_code == 302
    r = await client.get(f"{API}/connections", headers=world.admin.headers)
    assert r.status_code == 200 and r.json() == []
    r = await client.post(f"{API}/dropbox/browse", json={}, headers=world.admin.headers)
    assert r.status_code == 404
    r = await client.delete(f"{API}/dropbox", headers=world.admin.headers)
    assert r.status_code == 404
    assert await stored(world.member.id, "dropbox") is not None


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_disconnect_revokes_at_the_provider_and_forgets(
    client, world, provider_server, provider
):
    assert (await connect(client, world.member, provider)).status_code == 302
    connection = await stored(world.member.id, provider)
    revoked_before = list(provider_server.state.revoked)

    r = await client.delete(f"{API}/{provider}", headers=world.member.headers)
    assert r.status_code == 200 and r.json() == {"ok": True}
    assert await stored(world.member.id, provider) is None
    newly = [t for t in provider_server.state.revoked if t not in revoked_before]
    (entry,) = [e for e in await audit_entries(connection.id) if e.action == "cloud.disconnected"]
    if provider == "microsoft":  # no per-app revocation at Microsoft (docs/decisions.md)
        assert newly == [] and entry.changes["revokedAtProvider"] == [None, False]
    else:
        assert len(newly) == 1 and provider_server.state.grants[newly[0]].revoked
        assert entry.changes["revokedAtProvider"] == [None, True]
    r = await client.get(f"{API}/connections", headers=world.member.headers)
    assert r.json() == []


async def test_connectors_need_the_pro_plan(client, provider_server, monkeypatch):
    monkeypatch.setattr(settings, "billing", "local")
    team = await make_world(plan="team")
    r = await client.get(f"{API}/connections", headers=team.member.headers)
    assert r.status_code == 402 and r.json()["code"] == "PLAN_REQUIRED"
    r = await client.get(f"{API}/google/authorize", headers=team.member.headers)
    assert r.status_code == 402
    pro = await make_world(plan="pro")
    r = await client.get(f"{API}/connections", headers=pro.member.headers)
    assert r.status_code == 200


async def test_signed_out_callers_are_refused(client, provider_server):
    for method, path in (
        ("GET", "/connections"),
        ("GET", "/google/authorize"),
        ("POST", "/google/browse"),
    ):
        r = await client.request(method, f"{API}{path}", json={})
        assert r.status_code == 401


def test_big_file_digest_is_what_the_standin_sends():
    hasher = hashlib.sha256()
    from tests.cloud.standin import big_chunks

    size = 0
    for chunk in big_chunks():
        hasher.update(chunk)
        size += len(chunk)
    assert size == BIG and hasher.hexdigest() == big_sha256()


async def test_the_connections_list_runs_the_same_queries_at_one_and_three(
    client, world, provider_server
):
    async def count() -> tuple[int, int]:
        with QueryCounter() as counter:
            r = await client.get(f"{API}/connections", headers=world.member.headers)
        assert r.status_code == 200
        return len(r.json()), counter.count

    assert (await connect(client, world.member, "google")).status_code == 302
    one, queries_at_one = await count()
    for provider in ("microsoft", "dropbox"):
        assert (await connect(client, world.member, provider)).status_code == 302
    three, queries_at_three = await count()
    assert (one, three) == (1, 3)
    assert queries_at_one == queries_at_three


async def test_a_failing_or_unreachable_provider_is_a_502(
    client, world, provider_server, monkeypatch
):
    assert (await connect(client, world.member, "google")).status_code == 302
    url, headers = f"{API}/google/open-link", world.member.headers
    r = await client.post(url, json={"itemId": "boom"}, headers=headers)
    assert r.status_code == 502 and r.json()["code"] == "PROVIDER_UNAVAILABLE"
    monkeypatch.setattr(settings, "google_api_url", f"http://127.0.0.1:{free_port()}/google")
    r = await client.post(url, json={"itemId": "file-a"}, headers=headers)
    assert r.status_code == 502 and r.json()["code"] == "PROVIDER_UNAVAILABLE"
    # the connection itself is fine
    r = await client.get(f"{API}/connections", headers=headers)
    assert r.json()[0]["status"] == "ACTIVE"
