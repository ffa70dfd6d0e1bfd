"""Where a webhook may send: public http(s) addresses only, checked when a URL is saved and
again before each attempt, after resolving its name, on the address then connected to."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from plumbline.config import settings
from plumbline.errors import InvalidField

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
MAX_URL = 2048
# Instance metadata services (AWS, GCP and Azure share the first; AWS over IPv6; Alibaba
# Cloud): never a receiver, whatever PLUMBLINE_WEBHOOKS_ALLOW_PRIVATE says.
METADATA = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")
# IPv6 forms that carry an IPv4 address, where a relay, translator or tunnel may deliver them
# (RFC 6052 NAT64, RFC 4291 IPv4-compatible, RFC 5214 ISATAP; 6to4, Teredo and IPv4-mapped
# are known to ``ipaddress``).
NAT64 = ipaddress.ip_network("64:ff9b::/96")
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
COMPATIBLE = ipaddress.ip_network("::/96")
ISATAP = (b"\x00\x00\x5e\xfe", b"\x02\x00\x5e\xfe")  # interface ids ::0:5efe:a.b.c.d, ::200:...


class Refused(Exception):
    """A target this service will not send to; the message says why."""


@dataclass(frozen=True)
class Target:
    """A URL's parts and the checked address to connect to."""

    scheme: str
    host: str  # as written in the URL (the Host header and the TLS server name)
    port: int
    address: Address


def translated(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a form only stands for (IPv4-mapped, 6to4, NAT64's well-known prefix),
    judged alone: a packet to it goes there."""
    if address in NAT64:
        return ipaddress.IPv4Address(address.packed[12:])
    return address.ipv4_mapped or address.sixtofour


def tunnelled(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses a tunnel or translator of this network may take ``address`` to,
    judged beside the address itself."""
    packed = address.packed
    if address.teredo is not None:
        return [address.teredo[1]]  # the client (``ipaddress`` undoes its inversion)
    compatible = address in COMPATIBLE and int(address) > 1  # not :: nor ::1
    if compatible or packed[8:12] in ISATAP:
        return [ipaddress.IPv4Address(packed[12:])]
    return []


def refusal(address: Address) -> str | None:
    """Why ``address`` is no webhook target, or None when it is one. An IPv6 address that
    carries an IPv4 one is judged by it (``translated``), or by both (``tunnelled``)."""
    judged: list[Address] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        alone = translated(address)
        judged = [alone] if alone is not None else [address, *tunnelled(address)]
    for candidate in judged:
        reason = _refusal(candidate)
        if reason is not None:
            return reason if candidate is address else f"{reason} ({candidate} embedded)"
    return None


def _refusal(address: Address) -> str | None:
    if address in METADATA:
        return "a cloud metadata address"
    if address.version == 6 and address in LOCAL_NAT64:
        # Where its IPv4 address sits depends on the network's prefix length (RFC 8215), so
        # whether it is the metadata service cannot be told.
        return "a local-use NAT64 address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_unspecified:
        return "an unspecified address"
    if settings.webhooks_allow_private:
        return None
    for test, kind in (
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address.version == 6 and address in UNIQUE_LOCAL, "a unique-local address"),
        (address.is_private, "a private address"),
        (address.is_reserved, "a reserved address"),
        (not address.is_global, "not a public address"),
    ):
        if test:
            return kind
    return None


def parse(url: str) -> tuple[str, str, int]:
    """The scheme, host and port of an http(s) URL; ValueError says what is wrong."""
    if len(url) > MAX_URL:
        raise ValueError(f"must be at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError("is not a valid URL") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError("must be an http or https URL")
    if not parts.hostname:
        raise ValueError("must name a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("must not carry credentials (receivers verify the signature instead)")
    if any(c.isspace() for c in url):
        raise ValueError("must not contain spaces")
    return scheme, parts.hostname, port or (443 if scheme == "https" else 80)


async def resolve(host: str, port: int) -> list[Address]:
    """The addresses ``host`` names (itself when it is one); an empty list when it resolves
    to nothing."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except (OSError, UnicodeError):
        return []
    found: list[Address] = []
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in found:
            found.append(address)
    return found


def _refused(host: str, addresses: list[Address]) -> str | None:
    for address in addresses:
        reason = refusal(address)
        if reason is not None:
            named = "is" if str(address) == host else f"resolves to {address},"
            return f"{host} {named} {reason}"
    return None


async def check_url(url: str) -> str:
    """A URL fit to save (400 on ``url`` otherwise). A name that resolves to nothing now is
    accepted: it is resolved and checked again before every attempt."""
    try:
        _, host, port = parse(url)
    except ValueError as exc:
        raise InvalidField("url", str(exc)) from None
    reason = _refused(host, await resolve(host, port))
    if reason is not None:
        raise InvalidField("url", f"must be a public address: {reason}")
    return url


async def target(url: str) -> Target:
    """The address to send to, checked; ``Refused`` says why there is none. Every address the
    name resolves to must pass (one name for a public and a private address is refused), and
    the connection goes to the first of them: no second lookup an attacker could answer."""
    try:
        scheme, host, port = parse(url)
    except ValueError as exc:
        raise Refused(f"The URL {exc}") from None
    addresses = await resolve(host, port)
    if not addresses:
        raise Refused(f"{host} could not be resolved")
    reason = _refused(host, addresses)
    if reason is not None:
        raise Refused(f"Refused: {reason}")
    return Target(scheme, host, port, addresses[0])
