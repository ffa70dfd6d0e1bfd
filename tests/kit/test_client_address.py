"""`kit.client_address`: which address a request comes from, for any header a client may send
(tests/app/test_forwarded_for.py runs it behind a real server)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from plumbline.config import Settings, proxy_networks
from plumbline.kit.client_address import client_address, forwarded_scheme, parse_address

LOOPBACK = proxy_networks("127.0.0.1, ::1")
PRIVATE = proxy_networks("10.0.0.0/8,172.16.0.0/12 , fd00::/8")


def test_the_setting_reads_addresses_and_networks() -> None:
    assert proxy_networks("") == ()
    assert [str(n) for n in proxy_networks(" 10.1.2.3 ,, 192.168.0.0/16,2001:db8::/32 ")] == [
        "10.1.2.3/32",
        "192.168.0.0/16",
        "2001:db8::/32",
    ]
    assert [str(n) for n in proxy_networks("10.1.2.3/8")] == ["10.0.0.0/8"]
    for bad in ("proxy.example.com", "10.0.0.0/33", "300.1.1.1", "*"):
        with pytest.raises(ValidationError, match="not an IP address or network"):
            Settings(trusted_proxies=bad)


def test_addresses_as_proxies_write_them() -> None:
    assert str(parse_address(" 203.0.113.7 ")) == "203.0.113.7"
    assert str(parse_address("203.0.113.7:5123")) == "203.0.113.7"
    assert str(parse_address("2001:db8::1")) == "2001:db8::1"
    assert str(parse_address("[2001:db8::1]:443")) == "2001:db8::1"
    assert str(parse_address("[2001:DB8:0::1]")) == "2001:db8::1"
    assert str(parse_address("::ffff:198.51.100.2")) == "198.51.100.2"
    for garbage in ("", "unknown", "_hidden", "[::1", "[::1]x", "1.2.3", "a:b", "1.2.3.4:x:y"):
        assert parse_address(garbage) is None, garbage


def test_without_trusted_proxies_the_peer_is_the_client() -> None:
    assert client_address("127.0.0.1", ["198.51.100.1"], ()) == "127.0.0.1"
    assert client_address("203.0.113.9", ["198.51.100.1"], LOOPBACK) == "203.0.113.9"
    assert client_address(None, ["198.51.100.1"], LOOPBACK) is None
    assert client_address("testclient", ["198.51.100.1"], LOOPBACK) == "testclient"


def test_a_trusted_peer_gives_the_rightmost_untrusted_address() -> None:
    assert client_address("127.0.0.1", ["198.51.100.1"], LOOPBACK) == "198.51.100.1"
    # Whatever the client wrote on the left is not believed.
    assert client_address("127.0.0.1", ["1.1.1.1, 198.51.100.1"], LOOPBACK) == "198.51.100.1"
    # Several headers are one list, in order.
    assert client_address("127.0.0.1", ["1.1.1.1", "198.51.100.1"], LOOPBACK) == "198.51.100.1"
    # Trusted hops in a chain are skipped, networks and IPv6 alike.
    chain = ["1.1.1.1, 198.51.100.1, 10.2.3.4, 172.16.0.9"]
    assert client_address("10.0.0.1", chain, PRIVATE) == "198.51.100.1"
    assert client_address("fd00::1", ["2001:db8::5, fd12::3"], PRIVATE) == "2001:db8::5"
    assert client_address("::1", ["[2001:db8::5]:1234"], LOOPBACK) == "2001:db8::5"
    # Only trusted proxies all along: the leftmost is as far as anyone can tell.
    assert client_address("10.0.0.1", ["10.0.0.2, 10.0.0.3"], PRIVATE) == "10.0.0.2"
    # No header: the proxy itself.
    assert client_address("127.0.0.1", [], LOOPBACK) == "127.0.0.1"


def test_garbage_stops_at_the_trusted_hop_that_wrote_it() -> None:
    for header in ("", " ", "unknown", "not an address", "1.1.1.1, nonsense", "1.1.1.1,"):
        assert client_address("127.0.0.1", [header], LOOPBACK) == "127.0.0.1", header
    chain = ["198.51.100.1, garbage, 10.0.0.7"]
    assert client_address("10.0.0.1", chain, PRIVATE) == "10.0.0.7"


def scope(peer: str, *headers: tuple[bytes, bytes]) -> dict[str, object]:
    return {"type": "http", "client": (peer, 5000), "headers": list(headers)}


def test_a_scope_without_trusted_proxies_is_its_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    from plumbline.config import settings
    from plumbline.kit.client_address import scope_client_ip

    monkeypatch.setattr(settings, "trusted_proxies", "")
    forwarded = (b"x-forwarded-for", b"198.51.100.1")
    assert scope_client_ip(scope("127.0.0.1", forwarded)) == "127.0.0.1"
    assert scope_client_ip(scope("::ffff:127.0.0.1", forwarded)) == "127.0.0.1"
    monkeypatch.setattr(settings, "trusted_proxies", "127.0.0.1")
    assert scope_client_ip(scope("127.0.0.1", forwarded)) == "198.51.100.1"


def test_the_forwarded_scheme_only_from_a_trusted_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    from plumbline.config import settings

    proto = (b"x-forwarded-proto", b"https")
    assert forwarded_scheme(scope("127.0.0.1", proto)) is None  # nobody trusted
    monkeypatch.setattr(settings, "trusted_proxies", "127.0.0.1")
    assert forwarded_scheme(scope("127.0.0.1", proto)) == "https"
    assert forwarded_scheme(scope("203.0.113.9", proto)) is None
    assert forwarded_scheme(scope("127.0.0.1", (b"x-forwarded-proto", b"http, HTTPS"))) == "https"
    assert forwarded_scheme(scope("127.0.0.1", (b"x-forwarded-proto", b"gopher"))) is None
    assert forwarded_scheme(scope("127.0.0.1")) is None


async def test_links_keep_the_scheme_a_trusted_proxy_forwards(
    client, world, monkeypatch: pytest.MonkeyPatch
) -> None:
    from plumbline.config import settings

    url = f"/api/v1/projects/{world.project.id}/team"
    headers = {**world.member.headers, "X-Forwarded-Proto": "https"}
    plain = await client.get(url, params={"limit": 1}, headers=headers)
    assert plain.headers["Link"].startswith("<http://")  # the ASGI peer is not trusted
    monkeypatch.setattr(settings, "trusted_proxies", "127.0.0.1")
    forwarded = await client.get(url, params={"limit": 1}, headers=headers)
    assert forwarded.headers["Link"].startswith("<https://")


def test_the_standard_forwarded_header_is_read_like_x_forwarded_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from plumbline.config import settings
    from plumbline.kit.client_address import scope_client_ip

    def forwarded(peer: str, value: str) -> dict[str, object]:
        return scope(peer, (b"forwarded", value.encode()), (b"x-forwarded-for", b"10.9.9.9"))

    chain = 'for=1.1.1.1, for=198.51.100.1;proto=https;by=127.0.0.1, for="[2001:db8::5]:443"'
    assert scope_client_ip(forwarded("127.0.0.1", chain)) == "127.0.0.1"  # nobody trusted
    assert forwarded_scheme(forwarded("127.0.0.1", "for=1.1.1.1;proto=https")) is None
    monkeypatch.setattr(settings, "trusted_proxies", "127.0.0.1, 2001:db8::/64")
    # Forwarded wins over X-Forwarded-For; the rightmost untrusted hop is the client.
    assert scope_client_ip(forwarded("127.0.0.1", chain)) == "198.51.100.1"
    assert scope_client_ip(forwarded("127.0.0.1", "For=203.0.113.4")) == "203.0.113.4"
    # An unknown or obfuscated hop stops the walk at the trusted proxy that wrote it.
    assert scope_client_ip(forwarded("127.0.0.1", "for=unknown")) == "127.0.0.1"
    assert scope_client_ip(forwarded("127.0.0.1", "for=_gazonk;proto=https")) == "127.0.0.1"
    assert scope_client_ip(forwarded("127.0.0.1", "proto=https")) == "127.0.0.1"
    # An untrusted peer's header is nobody's word.
    assert scope_client_ip(forwarded("203.0.113.9", "for=198.51.100.1")) == "203.0.113.9"
    # The scheme: the nearest proxy's proto=.
    assert forwarded_scheme(forwarded("127.0.0.1", "for=1.1.1.1;proto=http, proto=https")) == (
        "https"
    )
    assert forwarded_scheme(forwarded("127.0.0.1", "for=1.1.1.1")) is None
    assert forwarded_scheme(forwarded("203.0.113.9", "proto=https")) is None
