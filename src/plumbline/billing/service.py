"""Billing rules: who may buy, and applying each verified processor event exactly once."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.auth.principal import Principal
from plumbline.authz.permissions import Permission
from plumbline.authz.workspace import named_workspace_access
from plumbline.billing import repository
from plumbline.billing.errors import BadSignature, MalformedEvent
from plumbline.billing.events import HANDLERS
from plumbline.billing.providers import provider
from plumbline.billing.schemas import CheckoutCreate, PortalCreate
from plumbline.billing.signature import TOLERANCE_SECONDS, webhook_secret
from plumbline.errors import NotConfigured


def _verified_event(payload: bytes, signature: str | None) -> dict[str, Any]:
    """The event, verified by the SDK itself: HMAC-SHA256 over ``timestamp.payload`` with the
    webhook secret, at most five minutes old. 400 otherwise."""
    import stripe  # on first use: the SDK takes seconds off every start-up

    secret = webhook_secret()
    if secret is None:
        raise NotConfigured("PLUMBLINE_STRIPE_WEBHOOK_SECRET is not set")
    try:
        stripe.Webhook.construct_event(payload, signature, secret, tolerance=TOLERANCE_SECONDS)
    except stripe.SignatureVerificationError:
        raise BadSignature() from None
    except (ValueError, AttributeError, TypeError, KeyError):
        # signed, but not UTF-8, not JSON, or JSON the SDK cannot read as an event
        raise MalformedEvent() from None
    event = orjson.loads(payload)
    data = event.get("data") if isinstance(event, dict) else None
    ok = (
        isinstance(event, dict)
        and isinstance(event.get("id"), str)
        and 0 < len(event["id"]) <= 255
        and isinstance(event.get("type"), str)
        and 0 < len(event["type"]) <= 100
        and isinstance(event.get("created"), int)
        and 0 <= event["created"] < 2**33
        and isinstance(data, dict)
        and isinstance(data.get("object"), dict)
    )
    if not ok:
        raise MalformedEvent()
    return event  # type: ignore[no-any-return]


class BillingService:
    async def checkout(self, db: AsyncSession, principal: Principal, body: CheckoutCreate) -> str:
        """A checkout URL for ``plan`` (SUPER_ADMIN of the workspace)."""
        ctx = await named_workspace_access(
            db, principal, body.workspace_id, Permission.BILLING_MANAGE
        )
        url = await provider().checkout(ctx.workspace, body.plan, principal.require_user().email)
        await audit_change(
            db,
            ctx,
            ("workspace", ctx.workspace.id),
            "workspace.checkout_started",
            {"plan": [ctx.workspace.plan, body.plan]},
        )
        return url

    async def portal(self, db: AsyncSession, principal: Principal, body: PortalCreate) -> str:
        """A billing portal URL (SUPER_ADMIN); 409 before the first checkout."""
        ctx = await named_workspace_access(
            db, principal, body.workspace_id, Permission.BILLING_MANAGE
        )
        return await provider().portal(ctx.workspace)

    async def receive(self, db: AsyncSession, payload: bytes, signature: str | None) -> None:
        """Verifies and applies one event once: a replay (also one delivered while the first
        delivery is being applied), or a kind this service does not handle, changes nothing.
        A failure raises, so the request rolls back (the event stays unrecorded) and the
        processor delivers it again."""
        event = _verified_event(payload, signature)
        recorded = await repository.claim_event(db, event["id"], event["type"])
        if recorded is None:  # a replay, or delivered twice at once and applied by the other
            return
        handler = HANDLERS.get(event["type"])
        if handler is None:
            recorded.outcome = "ignored"
            return
        at = datetime.fromtimestamp(event["created"], UTC)
        outcome = await handler(db, event["data"]["object"], at)
        recorded.outcome = outcome.outcome
        recorded.workspace_id = outcome.workspace_id


billing = BillingService()
