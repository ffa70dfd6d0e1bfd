"""Each processor event kind, how it moves the workspace, and what is recorded."""

from __future__ import annotations

import time

import pytest

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.models import BillingEvent, Workspace
from tests.billing.conftest import WEBHOOK, event, signed
from tests.factories import make_world

pytestmark = pytest.mark.usefixtures("billing_local")


async def state(workspace_id: str) -> tuple[str, str]:
    async with database.sessionmaker() as db:
        row = await db.get(Workspace, workspace_id)
        assert row is not None
        return row.plan, row.subscription_status


async def recorded(event_id: str) -> BillingEvent | None:
    async with database.sessionmaker() as db:
        return await db.get(BillingEvent, event_id)


async def send(client, kind: str, obj: dict, **kwargs) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    event_id = kwargs.pop("event_id", None) or f"evt_{new_id()}"
    payload = event(kind, obj, event_id=event_id, **kwargs)
    answer = await client.post(WEBHOOK, content=payload, headers=signed(payload))
    if answer.status_code == 200:
        assert answer.json() == {"ok": True}
    return answer.status_code, event_id


def subscription(ws: str, status: str, *, sub: str | None = None, **extra: object) -> dict:  # type: ignore[type-arg]
    return {
        "id": sub or f"sub_{ws}",
        "object": "subscription",
        "customer": f"cus_{ws}",
        "status": status,
        "metadata": {"workspace_id": ws},
        **extra,
    }


def invoice(ws: str, *, sub: str | None = None, nested: bool = False) -> dict:  # type: ignore[type-arg]
    obj: dict[str, object] = {"id": f"in_{new_id()}", "object": "invoice", "customer": f"cus_{ws}"}
    if nested:  # API versions from 2025-03 name the subscription under parent
        obj["parent"] = {"subscription_details": {"subscription": sub or f"sub_{ws}"}}
    else:
        obj["subscription"] = sub or f"sub_{ws}"
    return obj


async def test_every_event_kind(client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    ws = world.workspace.id
    t = int(time.time())
    plan_pro = {"metadata": {"workspace_id": ws, "plan": "pro"}}

    # created: a subscription started by a checkout (metadata names workspace and plan)
    status, eid = await send(
        client,
        "customer.subscription.created",
        subscription(ws, "trialing", trial_end=t + 86400, **plan_pro),
        created=t,
    )
    assert status == 200 and await state(ws) == ("pro", "trialing")
    assert (await recorded(eid)).outcome == "applied"  # type: ignore[union-attr]

    # checkout.session.completed: the plan bought, active
    checkout = {
        "id": "cs_1",
        "object": "checkout.session",
        "mode": "subscription",
        "client_reference_id": ws,
        "customer": f"cus_{ws}",
        "subscription": f"sub_{ws}",
        "metadata": {"workspace_id": ws, "plan": "team"},
    }
    assert (await send(client, "checkout.session.completed", checkout, created=t + 1))[0] == 200
    assert await state(ws) == ("team", "active")

    # updated: a plan changed in the portal shows as the new price
    monkeypatch.setattr(settings, "stripe_price_enterprise", "price_ent")
    items = {"items": {"data": [{"price": {"id": "price_ent"}}]}}
    obj = subscription(ws, "active", **items)
    obj["metadata"] = {}
    assert (await send(client, "customer.subscription.updated", obj, created=t + 2))[0] == 200
    assert await state(ws) == ("enterprise", "active")

    # invoice.payment_failed: active -> past_due (reads stay, writes stop)
    assert (await send(client, "invoice.payment_failed", invoice(ws), created=t + 3))[0] == 200
    assert await state(ws) == ("enterprise", "past_due")
    issues = f"/api/v1/projects/{world.project.id}/issues"
    assert (await client.get(issues, headers=world.member.headers)).status_code == 200
    refused = await client.post(issues, json={"title": "Leak"}, headers=world.member.headers)
    assert refused.status_code == 402 and refused.json()["code"] == "SUBSCRIPTION_INACTIVE"

    # invoice.paid: past_due -> active (the newer API's nested subscription id)
    assert (await send(client, "invoice.paid", invoice(ws, nested=True), created=t + 4))[0] == 200
    assert await state(ws) == ("enterprise", "active")
    assert (
        await client.post(issues, json={"title": "Leak"}, headers=world.member.headers)
    ).status_code == 200

    # an event older than the last one applied is stale: recorded, ignored
    status, eid = await send(client, "invoice.payment_failed", invoice(ws), created=t + 2)
    assert status == 200 and await state(ws) == ("enterprise", "active")
    assert (await recorded(eid)).outcome == "ignored"  # type: ignore[union-attr]

    # an old subscription of the workspace ending or lapsing does not touch the current one
    for kind, status_of_old, meta in (
        ("customer.subscription.deleted", "canceled", {}),
        ("customer.subscription.deleted", "canceled", {"workspace_id": ws}),
        ("customer.subscription.updated", "past_due", {"workspace_id": ws, "plan": "team"}),
    ):
        old = subscription(ws, status_of_old, sub="sub_old")
        old["metadata"] = meta
        status, eid = await send(client, kind, old, created=t + 5)
        assert status == 200 and await state(ws) == ("enterprise", "active")
        assert (await recorded(eid)).outcome == "ignored"  # type: ignore[union-attr]

    # deleted: canceled; the plan stays for reads
    assert (
        await send(
            client, "customer.subscription.deleted", subscription(ws, "canceled"), created=t + 6
        )
    )[0] == 200
    assert await state(ws) == ("enterprise", "canceled")
    # a paid invoice never revives a canceled subscription
    assert (await send(client, "invoice.paid", invoice(ws), created=t + 7))[0] == 200
    assert await state(ws) == ("enterprise", "canceled")
    # a new checkout's live subscription naming the workspace takes over
    new = subscription(ws, "active", sub="sub_new", metadata={"workspace_id": ws, "plan": "pro"})
    assert (await send(client, "customer.subscription.created", new, created=t + 8))[0] == 200
    assert await state(ws) == ("pro", "active")


async def test_unknown_kinds_and_unknown_workspaces_are_recorded_and_ignored(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    status, eid = await send(client, "customer.tax_id.created", {"id": "txi_1", "object": "tax_id"})
    assert status == 200
    row = await recorded(eid)
    assert row is not None and row.outcome == "ignored" and row.type == "customer.tax_id.created"
    status, eid = await send(client, "invoice.paid", invoice("nobody"))
    assert status == 200 and (await recorded(eid)).outcome == "ignored"  # type: ignore[union-attr]
    missing = {
        "id": "cs_2",
        "mode": "subscription",
        "metadata": {"workspace_id": new_id(), "plan": "pro"},
    }
    assert (await send(client, "checkout.session.completed", missing))[0] == 200
    payment = {
        "id": "cs_3",
        "mode": "payment",
        "metadata": {"workspace_id": world.workspace.id, "plan": "pro"},
    }
    assert (await send(client, "checkout.session.completed", payment))[0] == 200
    assert await state(world.workspace.id) == ("trial", "trialing")


async def test_an_event_that_cannot_be_applied_is_retried(client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A subscription on a price this service does not know yet: 500, nothing recorded, so the
    processor delivers it again; once the price is configured the same event applies."""
    world = await make_world()
    ws = world.workspace.id
    obj = subscription(ws, "active", items={"data": [{"price": {"id": "price_new_pro"}}]})
    event_id = f"evt_{new_id()}"
    status, _ = await send(client, "customer.subscription.updated", obj, event_id=event_id)
    assert status == 500
    assert await recorded(event_id) is None
    assert await state(ws) == ("trial", "trialing")
    monkeypatch.setattr(settings, "stripe_price_pro", "price_new_pro")
    status, _ = await send(client, "customer.subscription.updated", obj, event_id=event_id)
    assert status == 200
    assert await state(ws) == ("pro", "active")
    assert (await recorded(event_id)).outcome == "applied"  # type: ignore[union-attr]
