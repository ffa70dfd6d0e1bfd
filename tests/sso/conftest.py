"""Real OpenID providers (``provider/provider.js``, the oidc-provider package from npm) for
the SSO tests, and a browser's walk through a sign-in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from plumbline.config import settings
from plumbline.kit.ids import new_id
from tests.factories import World, make_world
from tests.live import STARTUP, free_port

PROVIDER_DIR = Path(__file__).parent / "provider"
CALLBACK = "http://127.0.0.1:8000/api/auth/sso/callback"
SECRET = "provider-client-secret"


def _client(client_id: str = "plumbline") -> dict[str, Any]:
    return {
        "client_id": client_id,
        "client_secret": SECRET,
        "redirect_uris": [CALLBACK],
        "token_endpoint_auth_method": "client_secret_post",
    }


@dataclass
class Providers:
    """The issuers of the running providers, by role."""

    good: str  # an honest provider (clients "plumbline" and "other")
    foreign_keys: str  # its discovery names the JWKS of ``good``: its own signatures fail there
    other_issuer: str  # its discovery names this URL, its tokens another issuer
    other_audience: str  # its ID tokens name an audience that is not the client
    short_lived: str  # its ID tokens live 60 seconds


def _npm_ci() -> None:
    if not (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir():
        npm = shutil.which("npm")
        assert npm, "npm is needed for the SSO tests' OpenID provider"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=PROVIDER_DIR, check=True)


@pytest.fixture(scope="session")
def providers() -> Iterator[Providers]:
    _npm_ci()
    ports = [free_port() for _ in range(5)]
    urls = [f"http://127.0.0.1:{p}" for p in ports]
    specs = [
        {"port": ports[0], "clients": [_client(), _client("other")]},
        {"port": ports[1], "clients": [_client()], "discovery": {"jwks_uri": f"{urls[0]}/jwks"}},
        {
            "port": ports[2],
            "issuer": f"{urls[2]}/elsewhere",
            "clients": [_client()],
            "discovery": {"issuer": urls[2]},
        },
        {"port": ports[3], "clients": [_client()], "idTokenAudience": "someone-else"},
        {"port": ports[4], "clients": [_client()], "idTokenTtl": 60},
    ]
    node = shutil.which("node")
    assert node, "node is needed for the SSO tests' OpenID provider"
    process = subprocess.Popen(
        [node, "provider.js"],
        cwd=PROVIDER_DIR,
        env={**os.environ, "PROVIDERS": json.dumps(specs)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()  # "ready [...]" once every port listens
        assert line.startswith("ready "), line
        yield Providers(*urls)
    finally:
        process.terminate()
        process.wait(STARTUP)


@pytest.fixture
def trusted(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    """Domains the server trusts as verified (``PLUMBLINE_SSO_TRUSTED_DOMAINS``)."""
    domains: set[str] = set()
    monkeypatch.setattr(type(settings), "trusted_domains", property(lambda _: domains))
    yield domains


def new_domain() -> str:
    return f"d{new_id()[-12:]}.example.com"


@dataclass
class SsoWorld:
    world: World
    domain: str
    issuer: str

    @property
    def slug(self) -> str:
        return self.world.workspace.slug

    def email(self, name: str = "") -> str:
        return f"{name or 'u' + new_id()[-10:]}@{self.domain}"


async def configure(
    client: httpx.AsyncClient,
    world: World,
    issuer: str,
    domains: list[str],
    **extra: Any,
) -> httpx.Response:
    body = {"issuer": issuer, "clientId": "plumbline", "clientSecret": SECRET, "domains": domains}
    return await client.put(
        f"/api/v1/workspaces/{world.workspace.id}/sso",
        json={**body, **extra},
        headers=world.admin.headers,
    )


@pytest.fixture
async def sso_world(client: httpx.AsyncClient, providers: Providers, trusted: set[str]) -> SsoWorld:
    world = await make_world()
    domain = new_domain()
    trusted.add(domain)
    answer = await configure(client, world, providers.good, [domain])
    assert answer.status_code == 200, answer.text
    return SsoWorld(world, domain, providers.good)


async def through_provider(authorize_url: str, login_hint: str, **replace: str) -> str:
    """A browser at the provider: signs in as ``login_hint`` (optionally after changing query
    parameters of the authorization URL) and answers the URL the provider redirects back to."""
    parts = urlsplit(authorize_url)
    query = httpx.QueryParams(parts.query).set("login_hint", login_hint)
    for name, value in replace.items():
        query = query.set(name, value)
    url = parts._replace(query=str(query)).geturl()
    async with httpx.AsyncClient() as browser:
        for _ in range(10):
            if url.startswith(CALLBACK):
                return url
            answer = await browser.get(url)
            assert answer.status_code in (302, 303), answer.text
            url = urljoin(url, answer.headers["location"])
    raise AssertionError("the provider never redirected back")


async def start(client: httpx.AsyncClient, path: str) -> str:
    answer = await client.get(path)
    assert answer.status_code == 302, answer.text
    return answer.headers["location"]


async def sign_in(
    client: httpx.AsyncClient, sso: SsoWorld, email: str, **replace: str
) -> httpx.Response:
    """The whole walk: start at the workspace's sign-in URL, sign in at the provider, and the
    callback's answer."""
    location = await start(client, f"/api/auth/sso/{sso.slug}")
    back = await through_provider(location, email, **replace)
    return await client.get(back.removeprefix("http://127.0.0.1:8000"))


@pytest.fixture
async def anonymous(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    """A client without the shared cookie jar's leftovers."""
    transport = httpx.ASGITransport(app=app)
    origin = "http://127.0.0.1:8000"
    async with httpx.AsyncClient(
        transport=transport, base_url=origin, headers={"Origin": origin}
    ) as c:
        yield c
