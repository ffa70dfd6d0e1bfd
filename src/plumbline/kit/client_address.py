"""The client's address: the connection's peer, or, when the peer is a proxy named in
``PLUMBLINE_TRUSTED_PROXIES``, the address that proxy forwarded in ``Forwarded`` (RFC 7239,
when sent) or ``X-Forwarded-For``.

The one place forwarded headers are read: every per-address rate limit, the session's and the
audit log's ``ip`` come from here. The server runs with uvicorn's own proxy handling off
(``plumbline serve``), so the connection's peer reaches the app as it is, whoever sends the
headers; a peer outside the trusted proxies is its own client."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Sequence

from starlette.requests import HTTPConnection
from starlette.types import Scope

from plumbline.config import ProxyNetwork, settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@functools.lru_cache(maxsize=4096)  # the same few peers connect again and again
def parse_address(text: str) -> Address | None:
    """An address as proxies write one: ``1.2.3.4``, ``1.2.3.4:5678``, ``::1``, ``[::1]:80``;
    None for anything else (``unknown``, an obfuscated name, garbage). IPv4-mapped IPv6
    addresses are read as IPv4."""
    text = text.strip()
    if text.startswith("["):
        end = text.find("]")
        if end == -1 or (text[end + 1 :] and not text[end + 1 :].startswith(":")):
            return None
        text = text[1:end]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(address: Address, proxies: Sequence[ProxyNetwork]) -> bool:
    return any(address in network for network in proxies)


def _hops(values: Iterable[str]) -> list[str]:
    """The X-Forwarded-For entries in order; several headers read as one comma-joined list."""
    return [hop for value in values for hop in value.split(",")]


def client_address(
    peer: str | None, forwarded_for: Iterable[str], proxies: Sequence[ProxyNetwork]
) -> str | None:
    """The client of a connection from ``peer`` carrying the ``X-Forwarded-For`` values
    ``forwarded_for``. Only a trusted peer is believed, and only as far as the chain stays
    trusted: each proxy appends the address it saw, so walking from the right, the first
    address that is not a trusted proxy is the client (entries further left are whatever that
    client sent). A chain of trusted proxies only gives its leftmost; an entry that is no
    address stops the walk at the trusted hop that wrote it."""
    found = parse_address(peer) if peer else None
    if found is None or not proxies or not _trusted(found, proxies):
        return str(found) if found is not None else peer
    for hop in reversed(_hops(forwarded_for)):
        address = parse_address(hop)
        if address is None:
            break
        found = address
        if not _trusted(address, proxies):
            break
    return str(found)


def forwarded_pairs(values: Iterable[str]) -> list[dict[str, str]]:
    """The elements of ``Forwarded`` headers in order (several headers read as one list), each
    its parameters by lower-case name, quotes removed: ``for=1.2.3.4;proto=https, for="[::1]"``
    -> ``[{"for": "1.2.3.4", "proto": "https"}, {"for": "[::1]"}]``."""
    elements = []
    for element in _hops(values):
        pairs = {}
        for pair in element.split(";"):
            name, equals, value = pair.partition("=")
            if equals:
                pairs[name.strip().lower()] = value.strip().strip('"')
        elements.append(pairs)
    return elements


def _forwarded_for(scope: Scope) -> list[str]:
    """The hops a proxy forwarded: ``Forwarded``'s ``for=`` values when it sent that header (an
    element without one is a hop of unknown address), else ``X-Forwarded-For``'s entries."""
    forwarded = _headers(scope, b"forwarded")
    if forwarded:
        return [pairs.get("for", "unknown") for pairs in forwarded_pairs(forwarded)]
    return _hops(_headers(scope, b"x-forwarded-for"))


def _headers(scope: Scope, name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope["headers"] if key == name]


def _peer(scope: Scope) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


def peer_is_trusted(scope: Scope) -> bool:
    peer = _peer(scope)
    address = parse_address(peer) if peer else None
    return address is not None and _trusted(address, settings.proxy_networks)


def scope_client_ip(scope: Scope) -> str | None:
    """``client_ip`` of a raw ASGI scope (the middleware's)."""
    peer, proxies = _peer(scope), settings.proxy_networks
    if not proxies:  # nobody's forwarded headers are believed: no need to read them
        return client_address(peer, (), proxies)
    return client_address(peer, _forwarded_for(scope), proxies)


def client_ip(connection: HTTPConnection) -> str | None:
    """The address of the client making this request (None when the server knows no peer)."""
    return scope_client_ip(connection.scope)


def forwarded_scheme(scope: Scope) -> str | None:
    """``http`` or ``https`` as a trusted proxy says in ``Forwarded``'s ``proto=`` or else
    ``X-Forwarded-Proto`` (the last value, the one the nearest proxy wrote); None otherwise,
    when the connection's own scheme holds."""
    if not peer_is_trusted(scope):
        return None
    forwarded = _headers(scope, b"forwarded")
    if forwarded:
        values = [forwarded_pairs(forwarded)[-1].get("proto", "")]
    else:
        values = _headers(scope, b"x-forwarded-proto")
    if not values:
        return None
    scheme = _hops(values)[-1].strip().lower()
    return scheme if scheme in ("http", "https") else None
