"""How each processor event moves a workspace's plan and subscription status.

docs/billing.md has the table. Every handler finds the workspace the event names (the
``workspace_id`` metadata the checkout put on the session and the subscription, else the
subscription or customer id recorded on the workspace), skips events older than the last one
applied to it (processors do not promise order), and answers what became of the event:
``applied`` or ``ignored``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, diff
from plumbline.billing import repository
from plumbline.billing.errors import EventNotApplied
from plumbline.config import settings
from plumbline.models import Workspace

PAID_PLANS = ("team", "pro", "enterprise")
# The processor's subscription statuses as the workspace keeps them; only active and trialing
# (within the trial) allow writes (authz.plans.subscription_active).
STATUSES = {
    "active": "active",
    "trialing": "trialing",
    "past_due": "past_due",
    "unpaid": "unpaid",
    "canceled": "canceled",
    "incomplete": "incomplete",
    "incomplete_expired": "canceled",
    "paused": "paused",
}
LIVE = ("active", "trialing")


@dataclass
class Outcome:
    workspace_id: str | None
    outcome: str


IGNORED = Outcome(None, "ignored")
Handler = Callable[[AsyncSession, dict[str, Any], datetime], Awaitable[Outcome]]


def text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def metadata(obj: dict[str, Any]) -> dict[str, Any]:
    found = obj.get("metadata")
    return found if isinstance(found, dict) else {}


def price_plans() -> dict[str, str]:
    prices = {plan: getattr(settings, f"stripe_price_{plan}") for plan in PAID_PLANS}
    return {price: plan for plan, price in prices.items() if price}


def plan_of(obj: dict[str, Any]) -> str | None:
    """The plan the event's object names: its metadata, else the price of its first item
    mapped through ``PLUMBLINE_STRIPE_PRICE_*`` (a plan changed in the billing portal)."""
    named = metadata(obj).get("plan")
    if named in PAID_PLANS:
        return str(named)
    items = obj.get("items")
    data = items.get("data") if isinstance(items, dict) else None
    for item in data if isinstance(data, list) else []:
        price = item.get("price") if isinstance(item, dict) else None
        price_id = text(price.get("id")) if isinstance(price, dict) else text(price)
        if price_id is not None and price_id in price_plans():
            return price_plans()[price_id]
    return None


def _billing_state(workspace: Workspace) -> dict[str, Any]:
    return {
        "plan": workspace.plan,
        "subscriptionStatus": workspace.subscription_status,
        "billingCustomerId": workspace.billing_customer_id,
        "billingSubscriptionId": workspace.billing_subscription_id,
        "trialEndsAt": workspace.trial_ends_at,
    }


async def _apply(
    db: AsyncSession,
    workspace: Workspace,
    at: datetime,
    kind: str,
    change: Callable[[Workspace], None],
) -> Outcome:
    """Applies ``change`` unless the event is older than the last one applied (stale)."""
    if workspace.billing_event_at is not None and at < workspace.billing_event_at:
        return Outcome(workspace.id, "ignored")
    before = _billing_state(workspace)
    change(workspace)
    workspace.billing_event_at = at
    await db.flush()
    await audit_as(
        db,
        "system",
        ("workspace", workspace.id),
        "workspace.billing_updated",
        {"event": [None, kind], **diff(before, _billing_state(workspace))},
        workspace_id=workspace.id,
    )
    return Outcome(workspace.id, "applied")


async def _named_workspace(db: AsyncSession, obj: dict[str, Any]) -> Workspace | None:
    named = text(metadata(obj).get("workspace_id")) or text(obj.get("client_reference_id"))
    return await repository.live_workspace(db, named) if named else None


async def checkout_completed(db: AsyncSession, obj: dict[str, Any], at: datetime) -> Outcome:
    """A paid subscription checkout: the workspace moves to the plan bought, active."""
    if obj.get("mode", "subscription") != "subscription":
        return IGNORED
    workspace = await _named_workspace(db, obj)
    if workspace is None:
        return IGNORED
    plan = plan_of(obj)
    if plan is None:
        raise EventNotApplied("The checkout names no plan this service knows")

    def change(ws: Workspace) -> None:
        ws.plan = plan
        ws.subscription_status = "active"
        ws.billing_customer_id = text(obj.get("customer")) or ws.billing_customer_id
        ws.billing_subscription_id = text(obj.get("subscription")) or ws.billing_subscription_id

    return await _apply(db, workspace, at, "checkout.session.completed", change)


async def _subscription_workspace(
    db: AsyncSession, obj: dict[str, Any], *, takes_over: bool
) -> Workspace | None:
    """The workspace of a subscription event; None when the subscription is not (or no longer)
    the workspace's own. Another subscription than the workspace's current one takes over only
    when ``takes_over`` (a live subscription naming the workspace: a new checkout); an old one
    ending or lapsing after a new checkout changes nothing."""
    subscription_id = text(obj.get("id"))
    workspace = await _named_workspace(db, obj) or await repository.workspace_of(
        db, subscription_id, text(obj.get("customer"))
    )
    if workspace is None:
        return None
    current = workspace.billing_subscription_id
    if current is not None and current != subscription_id:
        named = text(metadata(obj).get("workspace_id")) == workspace.id
        return workspace if takes_over and named else None
    return workspace


def _subscription_handler(kind: str) -> Handler:
    async def handler(db: AsyncSession, obj: dict[str, Any], at: datetime) -> Outcome:
        """The subscription's status and plan (a plan changed in the portal shows as its price)."""
        status = STATUSES.get(str(obj.get("status")), "incomplete")
        workspace = await _subscription_workspace(db, obj, takes_over=status in LIVE)
        if workspace is None:
            return IGNORED
        plan = plan_of(obj)
        if plan is None and status in LIVE:
            raise EventNotApplied("The subscription's price is not one of the configured plans")
        trial_end = obj.get("trial_end")

        def change(ws: Workspace) -> None:
            ws.plan = plan or ws.plan
            ws.subscription_status = status
            ws.billing_subscription_id = text(obj.get("id")) or ws.billing_subscription_id
            ws.billing_customer_id = text(obj.get("customer")) or ws.billing_customer_id
            if status == "trialing" and isinstance(trial_end, int):
                ws.trial_ends_at = datetime.fromtimestamp(trial_end, UTC)

        return await _apply(db, workspace, at, kind, change)

    return handler


async def subscription_deleted(db: AsyncSession, obj: dict[str, Any], at: datetime) -> Outcome:
    """The subscription ended: canceled (the plan stays, for reads; writes are refused)."""
    workspace = await _subscription_workspace(db, obj, takes_over=False)
    if workspace is None:
        return IGNORED

    def change(ws: Workspace) -> None:
        ws.subscription_status = "canceled"

    return await _apply(db, workspace, at, "customer.subscription.deleted", change)


def _invoice_subscription(obj: dict[str, Any]) -> str | None:
    """``subscription`` (API versions before 2025-03), else ``parent.subscription_details``."""
    direct = obj.get("subscription")
    if isinstance(direct, dict):
        direct = direct.get("id")
    if text(direct):
        return text(direct)
    parent = obj.get("parent")
    details = parent.get("subscription_details") if isinstance(parent, dict) else None
    return text(details.get("subscription")) if isinstance(details, dict) else None


def _invoice_handler(kind: str, moves: dict[str, str]) -> Handler:
    async def handler(db: AsyncSession, obj: dict[str, Any], at: datetime) -> Outcome:
        """The status after a payment attempt on the workspace's current subscription."""
        subscription_id = _invoice_subscription(obj)
        workspace = await repository.workspace_of(db, subscription_id, text(obj.get("customer")))
        if workspace is None or (
            subscription_id is not None and workspace.billing_subscription_id != subscription_id
        ):
            return IGNORED
        target = moves.get(workspace.subscription_status)
        if target is None:
            return Outcome(workspace.id, "ignored")

        def change(ws: Workspace) -> None:
            ws.subscription_status = target

        return await _apply(db, workspace, at, kind, change)

    return handler


HANDLERS: dict[str, Handler] = {
    "checkout.session.completed": checkout_completed,
    "customer.subscription.created": _subscription_handler("customer.subscription.created"),
    "customer.subscription.updated": _subscription_handler("customer.subscription.updated"),
    "customer.subscription.deleted": subscription_deleted,
    # a failed renewal: active or trialing -> past_due (canceled stays canceled)
    "invoice.payment_failed": _invoice_handler(
        "invoice.payment_failed", {"active": "past_due", "trialing": "past_due"}
    ),
    # a paid invoice settles a failed payment; it never revives a canceled subscription, and a
    # trial's $0 invoice leaves it trialing (the subscription update ends the trial)
    "invoice.paid": _invoice_handler(
        "invoice.paid",
        {"past_due": "active", "unpaid": "active", "incomplete": "active"},
    ),
}
