"""Domain proof: a TXT record ``plumbline-verification=<token>`` at
``_plumbline-verification.<domain>``, read with dnspython."""

from __future__ import annotations

import dns.asyncresolver
import dns.exception
import dns.resolver

from plumbline.config import settings

PREFIX = "_plumbline-verification"
TIMEOUT = 5.0


def record_name(domain: str) -> str:
    return f"{PREFIX}.{domain}"


def record_value(token: str) -> str:
    return f"plumbline-verification={token}"


def _resolver() -> dns.asyncresolver.Resolver:
    server = settings.sso_dns_server.strip()
    if not server:
        return dns.asyncresolver.Resolver()
    resolver = dns.asyncresolver.Resolver(configure=False)
    host, _, port = server.rpartition(":") if server.count(":") == 1 else (server, "", "")
    resolver.nameservers = [host]
    resolver.port = int(port) if port else 53
    return resolver


async def proves(domain: str, token: str) -> bool:
    """Whether a TXT record of ``domain`` carries the workspace's verification value."""
    try:
        answer = await _resolver().resolve(record_name(domain), "TXT", lifetime=TIMEOUT)
    except (dns.exception.DNSException, OSError):
        return False
    expected = record_value(token).encode()
    return any(b"".join(rdata.strings) == expected for rdata in answer)
