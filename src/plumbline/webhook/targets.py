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


class Refused(Exception):
    """A target this service will not send to; the message says why."""


@dataclass(frozen=True)
class Target:
    """A URL's parts and the checked address to connect to."""

    scheme: str
    host: str  # as written in the URL (the Host header and the TLS server name)
    port: int
    address: Address


def refusal(address: Address) -> str | None:
    """Why ``address`` is no webhook target, or None when it is one."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address in METADATA:
        return "a cloud metadata address"
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
