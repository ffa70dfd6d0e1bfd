"""The demo's subscription: with the local processor (``PLUMBLINE_BILLING=local``) the demo
workspace buys the enterprise plan through the built-in checkout page, as a user would."""

from __future__ import annotations

from plumbline.config import settings
from plumbline.demo.api import Api, DemoFailed


async def subscribe(api: Api, workspace_id: str) -> None:
    if settings.billing != "local":
        return  # off: every module is on anyway; stripe: a real checkout needs a real card
    checkout = await api(
        "POST", "/api/payments/checkout", json={"workspaceId": workspace_id, "plan": "enterprise"}
    )
    page = checkout["url"].removeprefix(settings.public_url.rstrip("/"))
    paid = await api.client.post(page)  # the page's "Pay" button
    if paid.status_code != 303:
        raise DemoFailed(f"POST {page}: {paid.status_code} {paid.text}")
