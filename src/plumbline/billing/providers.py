"""The two payment processors: Stripe (its official SDK) and the built-in local one.

The local one's pages are served by the app itself (for demos and tests).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Protocol

from plumbline.billing import tokens
from plumbline.billing.errors import NoSubscription, ProviderFailed
from plumbline.config import settings
from plumbline.errors import NotConfigured
from plumbline.kit.ids import new_id
from plumbline.models import Workspace

if TYPE_CHECKING:  # the SDK is imported on first use: it takes seconds off every start-up
    import stripe
    from stripe.params.checkout import SessionCreateParams

LOCAL_PREFIX = "/api/payments/local"


def public(path: str) -> str:
    return f"{settings.public_url.rstrip('/')}{path}"


def success_url(workspace: Workspace) -> str:
    return public(f"/?billing=success&workspaceId={workspace.id}")


def cancel_url(workspace: Workspace) -> str:
    return public(f"/?billing=canceled&workspaceId={workspace.id}")


class Provider(Protocol):
    async def checkout(self, workspace: Workspace, plan: str, email: str) -> str: ...

    async def portal(self, workspace: Workspace) -> str: ...


class LocalProvider:
    """Checkout and portal pages served by the app; paying posts a signed event to the
    webhook (billing.local)."""

    async def checkout(self, workspace: Workspace, plan: str, email: str) -> str:
        token = tokens.make(tokens.CHECKOUT, {"w": workspace.id, "p": plan, "s": new_id()})
        return public(f"{LOCAL_PREFIX}/checkout/{token}")

    async def portal(self, workspace: Workspace) -> str:
        if workspace.billing_subscription_id is None:
            raise NoSubscription()
        claims = {
            "w": workspace.id,
            "sub": workspace.billing_subscription_id,
            "cus": workspace.billing_customer_id,
        }
        return public(f"{LOCAL_PREFIX}/portal/{tokens.make(tokens.PORTAL, claims)}")


class StripeProvider:
    """A Checkout Session in subscription mode and a billing portal session, through the SDK.
    ``PLUMBLINE_STRIPE_API_BASE`` points the SDK elsewhere (tests' stand-in, a proxy)."""

    def client(self) -> stripe.StripeClient:
        if settings.stripe_secret_key is None:
            raise NotConfigured("PLUMBLINE_STRIPE_SECRET_KEY is not set")
        return _client(settings.stripe_secret_key.get_secret_value(), settings.stripe_api_base)

    def price(self, plan: str) -> str:
        price = getattr(settings, f"stripe_price_{plan}")
        if not price:
            raise NotConfigured(f"PLUMBLINE_STRIPE_PRICE_{plan.upper()} is not set")
        return str(price)

    async def checkout(self, workspace: Workspace, plan: str, email: str) -> str:
        import stripe

        tags = {"workspace_id": workspace.id, "plan": plan}
        params: SessionCreateParams = {
            "mode": "subscription",
            "line_items": [{"price": self.price(plan), "quantity": 1}],
            "client_reference_id": workspace.id,
            "metadata": tags,
            "subscription_data": {"metadata": tags},
            "success_url": success_url(workspace),
            "cancel_url": cancel_url(workspace),
        }
        if workspace.billing_customer_id:
            params["customer"] = workspace.billing_customer_id
        else:
            params["customer_email"] = email
        try:
            session = await self.client().v1.checkout.sessions.create_async(params)
        except stripe.StripeError as exc:
            raise ProviderFailed() from exc
        if not session.url:
            raise ProviderFailed()
        return session.url

    async def portal(self, workspace: Workspace) -> str:
        import stripe

        if workspace.billing_customer_id is None:
            raise NoSubscription()
        try:
            session = await self.client().v1.billing_portal.sessions.create_async(
                {"customer": workspace.billing_customer_id, "return_url": success_url(workspace)}
            )
        except stripe.StripeError as exc:
            raise ProviderFailed() from exc
        return session.url


@functools.cache
def _client(secret_key: str, api_base: str | None) -> stripe.StripeClient:
    """One SDK client (and its connection pool) per key and API base."""
    import stripe

    return stripe.StripeClient(
        secret_key,
        base_addresses={"api": api_base.rstrip("/")} if api_base else None,
        http_client=stripe.HTTPXClient(),
        max_network_retries=2,
    )


def provider() -> Provider:
    return StripeProvider() if settings.billing == "stripe" else LocalProvider()
