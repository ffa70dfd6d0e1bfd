"""Secrets at rest (issue 30, part 7): after the demo and one of each token-bearing action
through HTTP, no secret the API or an e-mail handed out is stored in clear in any column of
any table.

Every response any client in this process receives is captured (``httpx.AsyncClient.send`` is
wrapped, so the demo's own requests count too), with every e-mail of the outbox; the secrets
are the values of fields that name one (``token``, ``secret``, ``apiKey``...), the random parts
of our own links, and the session cookies (with their unsigned core). Then every column of
every table is read as text. A secret the server must use later is stored encrypted: those
are listed in ``ENCRYPTED``, checked to hold the ciphertext of the value, never the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx
import orjson
import pytest
from pydantic import SecretStr
from sqlalchemy import MetaData, select

from plumbline.api import ROUTERS
from plumbline.cloud import oauth
from plumbline.config import settings
from plumbline.db import database
from plumbline.demo.seed import seed as demo_seed
from plumbline.kit import crypto, ratelimit
from plumbline.kit.ids import new_id
from plumbline.models import CloudConnection, IdempotencyKey, SsoConfig, Webhook
from plumbline.sso import service as sso_service
from plumbline.webhook import signing
from tests.authz.sweep_world import SSO_CLIENT_SECRET, P, Seed, connect_cloud, seed
from tests.cloud.standin import CLIENT_SECRET, StandIn
from tests.conftest import ORIGIN
from tests.factories import PASSWORD, link_in, mail_text, read_mails

# A secret: at least this long, and not one of our ids (32 hex digits, stored everywhere).
MIN_LENGTH = 20
ID = re.compile(r"[0-9a-f]{32}")
SECRET_FIELDS = re.compile(r"(?i)(token|secret|apikey|^key$|url|link|location)")
TOKEN = re.compile(r"[A-Za-z0-9_\-.~+/=]+")  # no spaces, no punctuation of prose
URL = re.compile(r"https?://[^\s\"'<>]+")
# The fixed words of our routes' paths: a link's segment that is one ("inspection-templates",
# in the links of digests other tests of the worker sent) is no secret.
PATH_WORDS = {
    word
    for _, router in ROUTERS
    for route in router.routes
    for word in str(getattr(route, "path", "")).split("/")
    if "{" not in word
}
# Links that name nothing secret: an SSO sign-in link names the workspace's slug (public).
PUBLIC_LINKS = {"signInUrl"}


@dataclass
class Captured:
    """Each secret seen, with where it was seen."""

    found: dict[str, list[str]] = field(default_factory=dict)

    def add(self, value: str, where: str) -> None:
        for candidate in _candidates(value):
            self.found.setdefault(candidate, []).append(where)

    def response(self, response: httpx.Response) -> None:
        where = f"{response.request.method} {response.request.url.path}"
        for header in response.headers.get_list("set-cookie"):
            name, _, rest = header.partition("=")
            value = unquote(rest.split(";", 1)[0])
            if value:
                self.add(value, f"{where} cookie {name}")
        if "location" in response.headers:
            self._url(response.headers["location"], f"{where} Location")
        try:
            body = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            for url in URL.findall(response.text if response.content else ""):
                self._url(url, where)
            return
        self._walk(body, where, "")

    def _walk(self, value: Any, where: str, name: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                self._walk(item, where, str(key))
        elif isinstance(value, list):
            for item in value:
                self._walk(item, where, name)
        elif (
            isinstance(value, str)
            and SECRET_FIELDS.search(name)
            and not name.endswith("At")
            and name not in PUBLIC_LINKS
        ):
            if value.startswith(("http://", "https://", "/")):
                self._url(value, f"{where} {name}")
            else:
                self.add(value, f"{where} {name}")

    def _url(self, url: str, where: str) -> None:
        """The random parts of one of our links: path segments and query values."""
        parts = urlsplit(url)
        if parts.netloc and not url.startswith(settings.public_url):
            return  # another site's link (a provider's, a receiver's): not ours to keep
        for segment in parts.path.split("/"):
            if segment not in PATH_WORDS:
                self.add(segment.removesuffix(".ics"), where)
        for _, value in parse_qsl(parts.query):
            self.add(value, where)


def _candidates(value: str) -> list[str]:
    """The value and, for a signed value (``<token>.<signature>``), its unsigned core."""
    found = [value]
    if "." in value:
        found.append(value.rsplit(".", 1)[0])
    return [v for v in found if len(v) >= MIN_LENGTH and TOKEN.fullmatch(v) and not ID.fullmatch(v)]


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Captured:
    seen = Captured()
    send = httpx.AsyncClient.send

    async def capturing(self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any) -> Any:
        response = await send(self, request, **kwargs)
        if not kwargs.get("stream"):
            seen.response(response)
        return response

    monkeypatch.setattr(httpx.AsyncClient, "send", capturing)
    return seen


@pytest.fixture
def standin() -> Iterator[StandIn]:
    server = StandIn().start()
    yield server
    server.stop()


@pytest.fixture
def providers(standin: StandIn, monkeypatch: pytest.MonkeyPatch) -> StandIn:
    for name, value in standin.settings().items():
        monkeypatch.setattr(settings, name, value)
    for provider in ("google", "microsoft", "dropbox"):
        monkeypatch.setattr(settings, f"{provider}_client_secret", SecretStr(CLIENT_SECRET))
    monkeypatch.setattr(settings, "billing", "local")
    return standin


async def _account_actions(s: Seed) -> None:
    """Sign-up (a verification e-mail), sign-in (a session), a password reset (its e-mail),
    the verification and the reset used."""
    client = httpx.AsyncClient(
        transport=s.client._transport, base_url=ORIGIN, headers={"Origin": ORIGIN}
    )
    address = f"secret-{new_id()}@example.com"
    async with client:
        up = await client.post(
            "/api/auth/sign-up/email",
            json={"name": "Sia Secret", "email": address, "password": PASSWORD},
        )
        assert up.status_code == 200, up.text
        verify = urlsplit(link_in(read_mails(s.outbox, to=address)[-1]))
        verified = await client.get(f"{verify.path}?{verify.query}")
        assert verified.status_code < 400, verified.text
        ratelimit.set_backend(ratelimit.MemoryBackend())
        signed_in = await client.post(
            "/api/auth/sign-in/email", json={"email": address, "password": PASSWORD}
        )
        assert signed_in.status_code == 200, signed_in.text
        asked = await client.post("/api/auth/request-password-reset", json={"email": address})
        assert asked.status_code == 200, asked.text
    reset_mail = [m for m in read_mails(s.outbox, to=address) if "reset" in mail_text(m).lower()]
    assert reset_mail, "no password-reset e-mail"
    query = dict(parse_qsl(urlsplit(link_in(reset_mail[-1])).query))
    token = query.get("token") or urlsplit(link_in(reset_mail[-1])).path.rsplit("/", 1)[1]
    reset = await s.client.post(
        "/api/auth/reset-password", json={"token": token, "newPassword": PASSWORD + "x"}
    )
    assert reset.status_code == 200, reset.text


async def _integration_actions(s: Seed) -> tuple[str, str]:
    """An API key made with an Idempotency-Key (its answer is stored for replays), a webhook
    secret rotated, the billing checkout links."""
    body = {"name": "Replayable", "scopes": ["issues:read"]}
    key = f"secrets-{new_id()}"
    headers = {**s.owner.headers, "Idempotency-Key": key}
    answers = set()
    for _ in range(2):  # the second is the stored answer, replayed
        made = await s.client.post(s.url(P + "/api-keys"), json=body, headers=headers)
        assert made.status_code == 200, made.text
        answers.add(made.json()["apiKey"])
    (api_key,) = answers
    await s.post(P + f"/webhooks/{s.ids['webhook']}/rotate-secret", {}, s.owner)
    checkout = await s.post(
        "/api/payments/checkout", {"workspaceId": s.world.workspace.id, "plan": "pro"}, s.owner
    )
    assert checkout["url"]
    return key, api_key


async def _every_cell() -> tuple[int, list[tuple[str, str, str]]]:
    """The number of tables in the database (reflected, not the models') and (table, column,
    value as text) of every non-null cell of each."""
    cells = []
    async with database.engine.connect() as conn:
        tables = MetaData()
        await conn.run_sync(tables.reflect)
        for table in tables.sorted_tables:
            for row in (await conn.execute(select(*table.c))).all():
                for column, value in zip(table.c, row, strict=True):
                    if value is not None:
                        cells.append((table.name, column.name, _as_text(value)))
    return len(tables.sorted_tables), cells


def _as_text(value: Any) -> str:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("latin-1")
    if isinstance(value, dict | list):
        return orjson.dumps(value).decode()
    return str(value)


# Secrets the server reads back, and where they are kept encrypted (kit.crypto, Fernet with a
# key derived from the secret key): the ciphertext is there, the value is not.
ENCRYPTED = {
    "webhook signing secrets": "webhooks.secret, webhooks.previous_secret",
    "cloud OAuth access and refresh tokens": "cloud_connections.access_token, .refresh_token",
    "answers stored for Idempotency-Key replays": "idempotency_keys (the sealed body)",
    "SSO client secrets": "sso_configs.client_secret",
    "the demo's printed links, for later runs to print again": "demo_links.path",
}


async def test_no_secret_is_stored_in_clear(
    client: httpx.AsyncClient, outbox: Any, captured: Captured, providers: StandIn
) -> None:
    demo = await demo_seed()
    s = await seed(client, outbox)
    await connect_cloud(s, s.owner)
    await _account_actions(s)
    idempotency_key, replayed_key = await _integration_actions(s)
    for message in read_mails(outbox):
        for url in URL.findall(mail_text(message)):
            captured._url(url, f"e-mail {message['Subject']!r}")
    # Given, never answered: the SSO client secret the seed configured.
    captured.add(SSO_CLIENT_SECRET, "PUT sso clientSecret (given)")
    for access, (refresh, _) in providers.state.access.items():
        captured.add(access, "cloud access token (the provider's)")
        captured.add(refresh, "cloud refresh token (the provider's)")

    # Each kind of secret was captured: the test cannot pass by capturing nothing.
    assert demo.api_key in captured.found
    for name, value in s.secrets.items():
        assert value in captured.found, f"{name} was not captured"
    kinds = " ".join(" ".join(places) for places in captured.found.values())
    for where in (
        # the session's secret is the cookie's (the body's ``token`` is the session's id)
        "sign-in/email cookie auth.session_token",
        "e-mail 'Verify your e-mail address'",
        "e-mail 'Reset your password'",
        "api-keys apiKey",
        "rotate-secret secret",
        "calendar-feeds url",
        "occupant-links token",
        "trackingUrl",
        "photoToken",
        "invites url",
        "portalUrl",
        "presign-upload uploadUrl",
        "cloud access token",
        "cloud refresh token",
        "/api/payments/checkout url",
        "sso clientSecret",
        "scim-tokens token",
    ):
        assert where in kinds, f"no secret captured from {where}"

    tables, cells = await _every_cell()
    in_clear = [
        f"{table}.{column} holds the {where[0]} secret {secret[:8]}..."
        for table, column, value in cells
        for secret, where in captured.found.items()
        if secret in value
    ]
    assert in_clear == []
    # The same scan finds what is stored in clear: the new account's e-mail address.
    assert any(table == "users" and "secret-" in value for table, _, value in cells)
    print(
        f"\nsecrets at rest: {len(captured.found)} secrets handed out, none in clear in "
        f"{len(cells)} cells of {tables} tables; encrypted: "
        + "; ".join(f"{name} ({where})" for name, where in ENCRYPTED.items())
    )

    # Encrypted: the ciphertext is there and opens to the value handed out.
    async with database.sessionmaker() as db:
        hook = await db.get(Webhook, s.ids["webhook"])
        assert hook is not None and hook.secret.startswith("gAAAA")
        assert hook.previous_secret is not None and hook.previous_secret.startswith("gAAAA")
        opened = crypto.decrypt(hook.previous_secret, signing.PURPOSE)
        assert opened == s.secrets["webhook signing secret"]
        connection = (
            await db.execute(select(CloudConnection).where(CloudConnection.user_id == s.owner.id))
        ).scalar_one()
        assert connection.access_token.startswith("gAAAA")
        assert connection.refresh_token is not None
        assert connection.refresh_token.startswith("gAAAA")
        assert oauth.unseal(connection.access_token) in providers.state.access
        refresh = oauth.unseal(connection.refresh_token)
        assert refresh is not None and refresh in providers.state.grants
        stored = (
            await db.execute(select(IdempotencyKey).where(IdempotencyKey.key == idempotency_key))
        ).scalar_one()
        assert replayed_key.encode() not in stored.body
        opened = crypto.unseal(stored.body, "idempotency")
        assert opened is not None and replayed_key.encode() in opened
        config = (
            await db.execute(
                select(SsoConfig).where(SsoConfig.workspace_id == s.world.workspace.id)
            )
        ).scalar_one()
        assert config.client_secret.startswith("gAAAA")
        assert sso_service.unseal(config.client_secret) == SSO_CLIENT_SECRET
