"""The Stripe provider offline: the official SDK pointed at a local stand-in of the Stripe API
(PLUMBLINE_STRIPE_API_BASE), and the SDK's webhook verification on events signed here."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

import pytest

from plumbline.config import settings
from plumbline.db import database
from plumbline.models import Workspace
from tests.billing.conftest import WEBHOOK, event, signed
from tests.factories import make_world, set_workspace

SECRET = "whsec_test_stripe_standin"


@dataclass
class StandIn:
    url: str
    requests: list[tuple[str, str, dict[str, str], dict[str, str]]] = field(default_factory=list)
    fail: bool = False


@pytest.fixture
def stripe_api() -> Iterator[StandIn]:
    """Answers POST /v1/checkout/sessions and /v1/billing_portal/sessions as Stripe does."""
    stand_in = StandIn(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = dict(parse_qsl(self.rfile.read(length).decode(), keep_blank_values=True))
            stand_in.requests.append((self.command, self.path, dict(self.headers), form))
            if stand_in.fail:
                body = {"error": {"type": "invalid_request_error", "message": "No such price"}}
                self._answer(400, body)
            elif self.path == "/v1/checkout/sessions":
                self._answer(
                    200,
                    {
                        "id": "cs_test_123",
                        "object": "checkout.session",
                        "url": "https://checkout.stripe.com/c/pay/cs_test_123",
                    },
                )
            elif self.path == "/v1/billing_portal/sessions":
                self._answer(
                    200,
                    {
                        "id": "bps_123",
                        "object": "billing_portal.session",
                        "url": "https://billing.stripe.com/p/session/bps_123",
                    },
                )
            else:
                self._answer(404, {"error": {"type": "invalid_request_error", "message": "?"}})

        def _answer(self, status: int, body: dict[str, object]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stand_in.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def billing_stripe(monkeypatch: pytest.MonkeyPatch, stripe_api: StandIn) -> StandIn:
    monkeypatch.setattr(settings, "billing", "stripe")
    monkeypatch.setattr(
        settings, "stripe_secret_key", __import__("pydantic").SecretStr("sk_test_123")
    )
    monkeypatch.setattr(settings, "stripe_webhook_secret", __import__("pydantic").SecretStr(SECRET))
    monkeypatch.setattr(settings, "stripe_api_base", stripe_api.url)
    monkeypatch.setattr(settings, "stripe_price_team", "price_team")
    monkeypatch.setattr(settings, "stripe_price_pro", "price_pro")
    monkeypatch.setattr(settings, "stripe_price_enterprise", "price_ent")
    return stripe_api


async def test_checkout_session_through_the_sdk(client, billing_stripe) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    answer = await client.post(
        "/api/payments/checkout",
        json={"workspaceId": world.workspace.id, "plan": "pro"},
        headers=world.owner.headers,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"url": "https://checkout.stripe.com/c/pay/cs_test_123"}
    [(method, path, headers, form)] = billing_stripe.requests
    assert (method, path) == ("POST", "/v1/checkout/sessions")
    assert headers["Authorization"] == "Bearer sk_test_123"
    ws = world.workspace.id
    assert form["mode"] == "subscription"
    assert form["line_items[0][price]"] == "price_pro" and form["line_items[0][quantity]"] == "1"
    assert form["client_reference_id"] == ws
    assert form["metadata[workspace_id]"] == ws and form["metadata[plan]"] == "pro"
    assert form["subscription_data[metadata][workspace_id]"] == ws
    assert form["subscription_data[metadata][plan]"] == "pro"
    assert form["success_url"] == f"{settings.public_url}/?billing=success&workspaceId={ws}"
    assert form["cancel_url"] == f"{settings.public_url}/?billing=canceled&workspaceId={ws}"
    assert form["customer_email"] == world.owner.user.email


async def test_portal_session_through_the_sdk(client, billing_stripe) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    body = {"workspaceId": world.workspace.id}
    none_yet = await client.post("/api/payments/portal", json=body, headers=world.owner.headers)
    assert none_yet.status_code == 409 and billing_stripe.requests == []
    await set_workspace(world.workspace.id, billing_customer_id="cus_abc")
    answer = await client.post("/api/payments/portal", json=body, headers=world.owner.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"url": "https://billing.stripe.com/p/session/bps_123"}
    [(_, path, _, form)] = billing_stripe.requests
    assert path == "/v1/billing_portal/sessions"
    assert form["customer"] == "cus_abc"
    assert form["return_url"].startswith(f"{settings.public_url}/?billing=success")
    # a returning customer's next checkout names the customer instead of an e-mail
    await client.post(
        "/api/payments/checkout",
        json={"workspaceId": world.workspace.id, "plan": "team"},
        headers=world.owner.headers,
    )
    form = billing_stripe.requests[-1][3]
    assert form["customer"] == "cus_abc" and "customer_email" not in form


async def test_provider_errors_and_missing_configuration(
    client, billing_stripe, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    body = {"workspaceId": world.workspace.id, "plan": "team"}
    billing_stripe.fail = True
    failed = await client.post("/api/payments/checkout", json=body, headers=world.owner.headers)
    assert failed.status_code == 502 and failed.json()["code"] == "PAYMENT_PROVIDER_ERROR"
    monkeypatch.setattr(settings, "stripe_price_team", None)
    missing = await client.post("/api/payments/checkout", json=body, headers=world.owner.headers)
    assert missing.status_code == 503 and missing.json()["code"] == "NOT_CONFIGURED"
    monkeypatch.setattr(settings, "stripe_webhook_secret", None)
    payload = event("invoice.paid", {"id": "in_1"})
    answer = await client.post(WEBHOOK, content=payload, headers=signed(payload, secret=SECRET))
    assert answer.status_code == 503


async def test_webhook_verified_with_the_configured_secret(client, billing_stripe) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    ws = world.workspace.id
    obj = {
        "id": "cs_live_1",
        "object": "checkout.session",
        "mode": "subscription",
        "client_reference_id": ws,
        "customer": "cus_x",
        "subscription": "sub_x",
        "metadata": {"workspace_id": ws, "plan": "enterprise"},
    }
    payload = event("checkout.session.completed", obj)
    # the local processor's secret is not the configured one
    refused = await client.post(WEBHOOK, content=payload, headers=signed(payload))
    assert refused.status_code == 400 and refused.json()["code"] == "INVALID_SIGNATURE"
    old = await client.post(
        WEBHOOK, content=payload, headers=signed(payload, secret=SECRET, at=int(time.time()) - 301)
    )
    assert old.status_code == 400
    answer = await client.post(WEBHOOK, content=payload, headers=signed(payload, secret=SECRET))
    assert answer.status_code == 200 and answer.json() == {"ok": True}
    async with database.sessionmaker() as db:
        row = await db.get(Workspace, ws)
        assert row is not None
        assert (row.plan, row.subscription_status) == ("enterprise", "active")
        assert (row.billing_customer_id, row.billing_subscription_id) == ("cus_x", "sub_x")
