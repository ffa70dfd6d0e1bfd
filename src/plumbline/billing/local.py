"""The local processor's checkout and portal pages.

The checkout page's "Pay" button and the portal page's "Cancel subscription" button make the
app send its own webhook a correctly signed event over HTTP (in-process), verified on the same
path as the processor's.
"""

from __future__ import annotations

import html
import time
from typing import Any

import httpx
import orjson
from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.billing import repository, tokens
from plumbline.billing.providers import cancel_url, public, success_url
from plumbline.billing.signature import HEADER, local_secret, sign
from plumbline.errors import Internal, found
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Workspace

PRICES = {"team": "$49", "pro": "$149", "enterprise": "$499"}  # shown on the demo page only
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}}
button{{font-size:1rem;padding:.6rem 1.4rem}} .note{{color:#666;font-size:.85rem}}</style>
</head><body><h1>{title}</h1>{body}
<p class="note">Local test processor: no card is charged.</p></body></html>"""


def render(title: str, body: str) -> str:
    return PAGE.format(title=html.escape(title), body=body)


async def _workspace(db: AsyncSession, workspace_id: Any) -> Workspace:
    return found(await repository.workspace(db, str(workspace_id)), "Checkout session not found")


async def checkout_page(db: AsyncSession, token: str) -> str:
    claims = tokens.read(token, tokens.CHECKOUT)
    workspace = await _workspace(db, claims["w"])
    plan = str(claims["p"])
    return render(
        "Plumbline checkout",
        f"<p>Workspace <strong>{html.escape(workspace.name)}</strong></p>"
        f"<p>Plan <strong>{html.escape(plan)}</strong>, "
        f"{PRICES.get(plan, '')} per month</p>"
        f'<form method="post"><button type="submit">Pay</button></form>'
        f'<p><a href="{html.escape(cancel_url(workspace))}">Cancel</a></p>',
    )


async def portal_page(db: AsyncSession, token: str) -> str:
    claims = tokens.read(token, tokens.PORTAL)
    workspace = await _workspace(db, claims["w"])
    active = workspace.subscription_status != "canceled"
    cancel = (
        '<form method="post"><button type="submit">Cancel subscription</button></form>'
        if active
        else ""
    )
    return render(
        "Plumbline billing",
        f"<p>Workspace <strong>{html.escape(workspace.name)}</strong></p>"
        f"<p>Plan <strong>{html.escape(workspace.plan)}</strong>, "
        f"subscription <strong>{html.escape(workspace.subscription_status)}</strong></p>"
        f'{cancel}<p><a href="{html.escape(success_url(workspace))}">Back</a></p>',
    )


async def send_to_webhook(request: Request, kind: str, obj: dict[str, Any]) -> None:
    """Posts a signed event to the app's own webhook, through its whole stack (middleware,
    verification, its own transaction). The page's request holds no transaction meanwhile."""
    event = {
        "id": f"evt_local_{new_id()}",
        "object": "event",
        "type": kind,
        "created": int(clock.now().timestamp()),
        "livemode": False,
        "data": {"object": obj},
    }
    payload = orjson.dumps(event)
    # Signed at the real time: the SDK checks the tolerance against the system clock.
    headers = {
        HEADER: sign(payload, local_secret(), int(time.time())),
        "Content-Type": "application/json",
    }
    transport = httpx.ASGITransport(app=request.app)
    async with httpx.AsyncClient(transport=transport, base_url=public("")) as client:
        response = await client.post("/api/payments/webhook", content=payload, headers=headers)
    if response.status_code != 200:
        raise Internal("The local processor's event was refused")


async def pay(request: Request, token: str) -> str:
    """Completes the checkout: the signed ``checkout.session.completed`` goes to the webhook.
    Reads nothing itself (the token names workspace and plan), so it holds no transaction
    while the webhook writes. Returns where the browser goes next."""
    claims = tokens.read(token, tokens.CHECKOUT)
    workspace_id, session = str(claims["w"]), str(claims["s"])
    tags = {"workspace_id": workspace_id, "plan": str(claims["p"])}
    await send_to_webhook(
        request,
        "checkout.session.completed",
        {
            "id": f"cs_local_{session}",
            "object": "checkout.session",
            "mode": "subscription",
            "status": "complete",
            "payment_status": "paid",
            "client_reference_id": workspace_id,
            "customer": f"cus_local_{workspace_id}",
            "subscription": f"sub_local_{session}",
            "metadata": tags,
        },
    )
    return public(f"/?billing=success&workspaceId={workspace_id}")


async def cancel(request: Request, token: str) -> str:
    """Cancels the subscription the portal was opened for, at once: a signed
    ``customer.subscription.deleted``."""
    claims = tokens.read(token, tokens.PORTAL)
    workspace_id = str(claims["w"])
    obj = {
        "id": str(claims["sub"]),
        "object": "subscription",
        "status": "canceled",
        "customer": claims.get("cus"),
        "metadata": {"workspace_id": workspace_id},
    }
    await send_to_webhook(request, "customer.subscription.deleted", obj)
    return public(f"/?billing=canceled&workspaceId={workspace_id}")
