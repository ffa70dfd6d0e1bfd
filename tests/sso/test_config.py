"""``/workspaces/{workspaceId}/sso``: set, read (never the secret), remove; domain proof."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import dns.message
import dns.rrset
import httpx
import pytest
from sqlalchemy import select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import crypto
from plumbline.models import AuditLog, SsoConfig
from tests.factories import make_world, set_workspace
from tests.sso.conftest import SECRET, Providers, configure, new_domain


@pytest.fixture
def dns_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A DNS server on a loopback UDP port answering the TXT records the test sets; the app's
    resolver asks it (``PLUMBLINE_SSO_DNS_SERVER``)."""
    records: dict[str, str] = {}
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                data, peer = sock.recvfrom(4096)
            except TimeoutError:
                continue
            query = dns.message.from_wire(data)
            answer = dns.message.make_response(query)
            name = str(query.question[0].name).rstrip(".")
            if name in records:
                answer.answer.append(
                    dns.rrset.from_text(name + ".", 60, "IN", "TXT", f'"{records[name]}"')
                )
            else:
                answer.set_rcode(dns.rcode.NXDOMAIN)
            sock.sendto(answer.to_wire(), peer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    monkeypatch.setattr(settings, "sso_dns_server", f"127.0.0.1:{sock.getsockname()[1]}")
    yield records
    stop.set()
    thread.join()
    sock.close()


async def test_put_get_delete(client: httpx.AsyncClient, providers: Providers) -> None:
    world = await make_world()
    domain = new_domain()
    url = f"/api/v1/workspaces/{world.workspace.id}/sso"
    assert (await client.get(url, headers=world.admin.headers)).status_code == 404

    answer = await configure(client, world, providers.good, [domain.upper()], required=True)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert "clientSecret" not in body and SECRET not in answer.text
    assert body["issuer"] == providers.good
    assert body["domains"][0]["domain"] == domain
    assert body["domains"][0]["verified"] is False  # neither trusted nor proved yet
    assert body["domains"][0]["txtRecordName"] == f"_plumbline-verification.{domain}"
    assert body["redirectUri"] == "http://127.0.0.1:8000/api/auth/sso/callback"
    assert body["scimBaseUrl"] == f"http://127.0.0.1:8000/scim/v2/{world.workspace.id}"
    read = await client.get(url, headers=world.admin.headers)
    assert read.json() == body

    async with database.sessionmaker() as db:
        config = (
            await db.execute(select(SsoConfig).where(SsoConfig.workspace_id == world.workspace.id))
        ).scalar_one()
        assert config.client_secret != SECRET
        assert crypto.decrypt(config.client_secret, "sso:client-secret") == SECRET

    # A later PUT may leave the secret out: it is kept.
    again = await client.put(
        url,
        json={"issuer": providers.good, "clientId": "plumbline", "domains": [domain]},
        headers=world.admin.headers,
    )
    assert again.status_code == 200, again.text
    assert again.json()["required"] is False

    assert (await client.delete(url, headers=world.admin.headers)).status_code == 200
    assert (await client.get(url, headers=world.admin.headers)).status_code == 404
    async with database.sessionmaker() as db:
        actions = (
            await db.execute(
                select(AuditLog.action)
                .where(AuditLog.workspace_id == world.workspace.id)
                .where(AuditLog.entity_type == "sso_config")
                .order_by(AuditLog.id)
            )
        ).scalars()
        assert list(actions) == ["sso.configured", "sso.updated", "sso.removed"]


async def test_refusals(client: httpx.AsyncClient, providers: Providers) -> None:
    world = await make_world()
    url = f"/api/v1/workspaces/{world.workspace.id}/sso"
    domain = new_domain()
    for actor in (world.member, world.manager):
        assert (await configure(client, world, providers.good, [domain])).status_code == 200
        answer = await client.get(url, headers=actor.headers)
        assert answer.status_code == 403
    no_secret = await client.put(
        f"/api/v1/workspaces/{(await make_world()).workspace.id}/sso",
        json={"issuer": providers.good, "clientId": "x", "domains": [new_domain()]},
        headers=world.admin.headers,
    )
    assert no_secret.status_code == 404  # not their workspace
    fresh = await make_world()
    answer = await client.put(
        f"/api/v1/workspaces/{fresh.workspace.id}/sso",
        json={"issuer": providers.good, "clientId": "x", "domains": [new_domain()]},
        headers=fresh.admin.headers,
    )
    assert answer.status_code == 400
    for issuer in ("http://idp.example.com", "ftp://x.example.com", "https://x.example.com?a=1"):
        answer = await configure(client, fresh, issuer, [new_domain()])
        assert answer.status_code == 400, issuer
        assert answer.json()["details"][0]["field"] == "issuer"
    assert (await configure(client, fresh, providers.good, ["not a domain"])).status_code == 400
    taken = await configure(client, fresh, providers.good, [domain])
    assert taken.status_code == 409
    assert taken.json()["code"] == "DOMAIN_TAKEN"


async def test_the_enterprise_plan(
    client: httpx.AsyncClient, providers: Providers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "billing", "local")
    world = await make_world()
    await set_workspace(world.workspace.id, plan="pro", subscription_status="active")
    answer = await configure(client, world, providers.good, [new_domain()])
    assert answer.status_code == 402
    assert answer.json()["requiredPlan"] == "enterprise"


async def test_a_domain_proved_by_its_txt_record(
    client: httpx.AsyncClient, providers: Providers, dns_server: dict[str, str]
) -> None:
    world = await make_world()
    domain = new_domain()
    body = (await configure(client, world, providers.good, [domain])).json()
    record = body["domains"][0]
    verify = f"/api/v1/workspaces/{world.workspace.id}/sso/domains/{domain}/verify"

    missing = await client.post(verify, headers=world.admin.headers)
    assert missing.status_code == 400
    assert missing.json()["code"] == "DOMAIN_NOT_VERIFIED"
    dns_server[record["txtRecordName"]] = "plumbline-verification=someone-elses"
    assert (await client.post(verify, headers=world.admin.headers)).status_code == 400

    dns_server[record["txtRecordName"]] = record["txtRecordValue"]
    answer = await client.post(verify, headers=world.admin.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["verified"] is True
    unknown = f"/api/v1/workspaces/{world.workspace.id}/sso/domains/{new_domain()}/verify"
    assert (await client.post(unknown, headers=world.admin.headers)).status_code == 404
