"""IPv6 addresses that carry an IPv4 address are judged by it (issue 40 item 4): when saved, on
PATCH, and at delivery after the name is resolved."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import Any

import httpx
import pytest

from plumbline.config import settings
from plumbline.kit.ids import new_id
from plumbline.webhook import delivery as delivery_module
from plumbline.webhook.targets import refusal
from tests.factories import World
from tests.webhook.support import create_issue, create_webhook, deliveries, url

METADATA = "a cloud metadata address"
VIA = f"{METADATA} (169.254.169.254 embedded)"
# (address, why it is refused, why still with PLUMBLINE_WEBHOOKS_ALLOW_PRIVATE); None: accepted.
CASES = [
    # 6to4 (2002::/16): the IPv4 address in bits 16-47.
    ("2002:7f00:1::", "a loopback address (127.0.0.1 embedded)", None),
    ("2002:a00:1::1", "a private address (10.0.0.1 embedded)", None),
    ("2002:a9fe:a9fe::", VIA, VIA),
    (
        "2002:e000:1::",
        "a multicast address (224.0.0.1 embedded)",
        "a multicast address (224.0.0.1 embedded)",
    ),
    ("2002:808:808::1", None, None),
    # NAT64, the well-known prefix (64:ff9b::/96): the last 32 bits.
    ("64:ff9b::7f00:1", "a loopback address (127.0.0.1 embedded)", None),
    ("64:ff9b::a9fe:a9fe", VIA, VIA),
    ("64:ff9b::808:808", None, None),
    # NAT64, local use (64:ff9b:1::/48): where the IPv4 address sits is the network's choice.
    ("64:ff9b:1::808:808", "a local-use NAT64 address", "a local-use NAT64 address"),
    ("64:ff9b:1:a9fe:a9:fe00::", "a local-use NAT64 address", "a local-use NAT64 address"),
    # IPv4-mapped (::ffff:0:0/96).
    ("::ffff:7f00:1", "a loopback address (127.0.0.1 embedded)", None),
    ("::ffff:a9fe:a9fe", VIA, VIA),
    ("::ffff:808:808", None, None),
    # IPv4-compatible (::/96, deprecated): the address itself is reserved.
    ("::a9fe:a9fe", "a reserved address", VIA),
    ("::a00:1", "a reserved address", None),
    ("::1", "a loopback address", None),
    # Teredo (2001::/32): the client is the inverted last 32 bits (here 169.254.169.254,
    # then 8.8.8.8); the address itself is not global.
    ("2001:0:4136:e378:8000:63bf:5601:5601", "a private address", VIA),
    ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", "a private address", None),
    # ISATAP interface ids (::0:5efe:a.b.c.d, ::200:5efe:a.b.c.d) under a global prefix.
    ("2606:4700::5efe:a9fe:a9fe", VIA, VIA),
    ("2606:4700::200:5efe:7f00:1", "a loopback address (127.0.0.1 embedded)", None),
    ("2606:4700::5efe:808:808", None, None),
    # Plain addresses keep their verdicts.
    ("2606:4700::1111", None, None),
    ("8.8.8.8", None, None),
    ("fd00:ec2::254", METADATA, METADATA),
]


@pytest.mark.parametrize(("address", "strict", "allowing"), CASES)
def test_embedded_ipv4_addresses_are_judged(
    monkeypatch: pytest.MonkeyPatch, address: str, strict: str | None, allowing: str | None
) -> None:
    ip = ipaddress.ip_address(address)
    monkeypatch.setattr(settings, "webhooks_allow_private", False)
    assert refusal(ip) == strict
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    assert refusal(ip) == allowing


async def _post(client: httpx.AsyncClient, world: World, target: str) -> httpx.Response:
    body = {"url": target, "events": ["issue.created"]}
    return await client.post(url(world), json=body, headers=world.admin.headers)


async def test_embedded_private_and_metadata_addresses_are_refused_at_save_and_on_patch(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "webhooks_allow_private", False)
    hook = await create_webhook(client, world, "https://erp.example.com/in")
    for target in ("http://[2002:7f00:1::]/", "http://[64:ff9b::a00:1]/in"):
        refused = await _post(client, world, target)
        assert refused.status_code == 400, refused.text
        [detail] = refused.json()["details"]
        assert detail["field"] == "url" and "embedded)" in detail["message"]
        patched = await client.patch(
            url(world, f"/{hook['id']}"), json={"url": target}, headers=world.admin.headers
        )
        assert patched.status_code == 400, patched.text
    # Allowing private targets never allows the metadata service, in any form.
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    for target in ("http://[2002:a9fe:a9fe::]/", "http://[::ffff:169.254.169.254]/"):
        refused = await _post(client, world, target)
        assert refused.status_code == 400, refused.text
        assert METADATA in refused.json()["details"][0]["message"]
        patched = await client.patch(
            url(world, f"/{hook['id']}"), json={"url": target}, headers=world.admin.headers
        )
        assert patched.status_code == 400, patched.text
    one = await client.get(url(world, f"/{hook['id']}"), headers=world.admin.headers)
    assert one.json()["url"] == "https://erp.example.com/in"
    assert [
        h["id"] for h in (await client.get(url(world), headers=world.admin.headers)).json()
    ] == [hook["id"]]


async def test_a_name_resolving_to_an_embedded_metadata_address_is_refused_at_delivery(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "webhooks_allow_private", True)
    host = f"hook-{new_id()}.invalid"  # resolves to nothing when saved: accepted
    hook = await create_webhook(client, world, f"http://{host}/in")

    async def getaddrinfo(name: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        assert name == host
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("2002:a9fe:a9fe::", 80, 0, 0))]

    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", getaddrinfo)

    def connect(*_: Any) -> Any:  # were the check to let it through: no traffic off the machine
        raise httpx.ConnectError("a connection was attempted")

    monkeypatch.setattr(delivery_module, "_url", connect)
    await create_issue(client, world)  # the attempt follows the response
    [delivery] = await deliveries(client, world, hook["id"])
    [attempt] = delivery["attempts"]
    assert attempt["statusCode"] is None
    assert attempt["error"] == f"Refused: {host} resolves to 2002:a9fe:a9fe::, {VIA}"
