"""The local processor end to end, and the webhook's refusals (PLUMBLINE_BILLING=local)."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from sqlalchemy import select

from plumbline.config import settings
from plumbline.db import database
from plumbline.models import AuditLog, BillingEvent, Workspace
from tests.billing.conftest import WEBHOOK, event, signed
from tests.factories import make_world, set_workspace

pytestmark = pytest.mark.usefixtures("billing_local")
API = "/api/v1"


async def workspace_row(workspace_id: str) -> Workspace:
    async with database.sessionmaker() as db:
        found = await db.get(Workspace, workspace_id)
        assert found is not None
        return found


async def recorded(event_id: str) -> BillingEvent | None:
    async with database.sessionmaker() as db:
        return await db.get(BillingEvent, event_id)


def proposals(world) -> str:  # type: ignore[no-untyped-def]
    return f"{API}/projects/{world.project.id}/proposals"


async def test_local_checkout_opens_a_gated_route(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world(plan="team")
    body = {"title": "Fit-out", "validUntil": "2030-01-01T00:00:00Z"}
    refused = await client.post(proposals(world), json=body, headers=world.member.headers)
    assert refused.status_code == 402, refused.text
    assert refused.json()["code"] == "PLAN_REQUIRED" and refused.json()["requiredPlan"] == "pro"

    answer = await client.post(
        "/api/payments/checkout",
        json={"workspaceId": world.workspace.id, "plan": "pro"},
        headers=world.owner.headers,
    )
    assert answer.status_code == 200, answer.text
    url = answer.json()["url"]
    assert url.startswith(f"{settings.public_url}/api/payments/local/checkout/")
    path = url.removeprefix(settings.public_url)

    page = await client.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Acme Builders" in page.text and "pro" in page.text
    assert re.search(r'<form method="post"><button type="submit">Pay</button>', page.text)

    paid = await client.post(path)  # the form posts to the page's own URL
    assert paid.status_code == 303, paid.text
    assert paid.headers["location"].startswith(f"{settings.public_url}/?billing=success")

    row = await workspace_row(world.workspace.id)
    assert (row.plan, row.subscription_status) == ("pro", "active")
    assert row.billing_customer_id == f"cus_local_{world.workspace.id}"
    assert row.billing_subscription_id and row.billing_subscription_id.startswith("sub_local_")
    shown = (
        await client.get(f"{API}/workspaces/{world.workspace.id}", headers=world.owner.headers)
    ).json()
    assert shown["plan"] == "pro" and shown["subscriptionStatus"] == "active"
    assert shown["seatLimit"] == 15 and shown["seatsUsed"] == 4

    opened = await client.post(proposals(world), json=body, headers=world.member.headers)
    assert opened.status_code == 200, opened.text
    async with database.sessionmaker() as db:
        actions = (
            await db.scalars(
                select(AuditLog.action).where(AuditLog.workspace_id == world.workspace.id)
            )
        ).all()
    assert "workspace.checkout_started" in actions and "workspace.billing_updated" in actions


async def test_local_portal_cancels_and_writes_stop(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    none_yet = await client.post(
        "/api/payments/portal",
        json={"workspaceId": world.workspace.id},
        headers=world.owner.headers,
    )
    assert none_yet.status_code == 409 and none_yet.json()["code"] == "NO_SUBSCRIPTION"
    url = (
        await client.post(
            "/api/payments/checkout",
            json={"workspaceId": world.workspace.id, "plan": "team"},
            headers=world.owner.headers,
        )
    ).json()["url"]
    assert (await client.post(url.removeprefix(settings.public_url))).status_code == 303

    portal = await client.post(
        "/api/payments/portal",
        json={"workspaceId": world.workspace.id},
        headers=world.owner.headers,
    )
    assert portal.status_code == 200, portal.text
    path = portal.json()["url"].removeprefix(settings.public_url)
    page = await client.get(path)
    assert page.status_code == 200 and "Cancel subscription" in page.text and "team" in page.text
    assert (await client.post(path)).status_code == 303
    row = await workspace_row(world.workspace.id)
    assert (row.plan, row.subscription_status) == ("team", "canceled")
    # lapsed: reads work, writes are refused
    issues = f"{API}/projects/{world.project.id}/issues"
    assert (await client.get(issues, headers=world.member.headers)).status_code == 200
    refused = await client.post(issues, json={"title": "Leak"}, headers=world.member.headers)
    assert refused.status_code == 402 and refused.json()["code"] == "SUBSCRIPTION_INACTIVE"
    assert "Cancel subscription" not in (await client.get(path)).text


async def test_only_a_super_admin_buys(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    body = {"workspaceId": world.workspace.id, "plan": "pro"}
    for actor in (world.admin, world.manager, world.member):
        answer = await client.post("/api/payments/checkout", json=body, headers=actor.headers)
        assert answer.status_code == 403, answer.text
        portal = await client.post("/api/payments/portal", json=body, headers=actor.headers)
        assert portal.status_code == 403
    other = await make_world()
    stranger = await client.post("/api/payments/checkout", json=body, headers=other.owner.headers)
    assert stranger.status_code == 404
    assert (await client.post("/api/payments/checkout", json=body)).status_code == 401
    bad = await client.post(
        "/api/payments/checkout",
        json={"workspaceId": world.workspace.id, "plan": "gold"},
        headers=world.owner.headers,
    )
    assert bad.status_code == 400 and bad.json()["details"][0]["field"] == "plan"


async def test_local_pages_refuse_forged_tokens(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    url = (
        await client.post(
            "/api/payments/checkout",
            json={"workspaceId": world.workspace.id, "plan": "pro"},
            headers=world.owner.headers,
        )
    ).json()["url"]
    path = url.removeprefix(settings.public_url)
    forged = path[:-3] + ("AAA" if not path.endswith("AAA") else "BBB")
    assert (await client.get(forged)).status_code == 404
    assert (await client.post(forged)).status_code == 404
    assert (await workspace_row(world.workspace.id)).plan == "trial"
    # a checkout token is no portal token
    portal_path = path.replace("/checkout/", "/portal/")
    assert (await client.post(portal_path)).status_code == 404


async def test_billing_off_answers_503_saying_how_to_turn_it_on(client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """As an unconfigured cloud connector answers (issue 24 item 11), not a bare 404."""
    monkeypatch.setattr(settings, "billing", "off")
    world = await make_world()
    body = {"workspaceId": world.workspace.id, "plan": "pro"}
    answers = [
        await client.post(path, json=body, headers=world.owner.headers)
        for path in ("/api/payments/checkout", "/api/payments/portal", WEBHOOK)
    ]
    for method in ("GET", "POST"):
        for page in ("checkout", "portal"):
            answers.append(await client.request(method, f"/api/payments/local/{page}/x.y"))
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert answer.json()["code"] == "BILLING_DISABLED"
        assert "PLUMBLINE_BILLING=stripe" in answer.json()["error"]
    assert (await workspace_row(world.workspace.id)).plan == "trial"


# -- the webhook ------------------------------------------------------------------------------


def checkout_completed(workspace_id: str, plan: str = "pro") -> dict[str, object]:
    return {
        "id": "cs_test_1",
        "object": "checkout.session",
        "mode": "subscription",
        "client_reference_id": workspace_id,
        "customer": f"cus_{workspace_id}",
        "subscription": f"sub_{workspace_id}",
        "metadata": {"workspace_id": workspace_id, "plan": plan},
    }


async def test_a_replayed_event_changes_nothing(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    payload = event("checkout.session.completed", checkout_completed(world.workspace.id, "team"))
    first = await client.post(WEBHOOK, content=payload, headers=signed(payload))
    assert first.status_code == 200 and first.json() == {"ok": True}
    assert (await workspace_row(world.workspace.id)).plan == "team"
    # the workspace moves on; the same event delivered again does not move it back
    await set_workspace(world.workspace.id, plan="enterprise")
    again = await client.post(WEBHOOK, content=payload, headers=signed(payload))
    assert again.status_code == 200 and again.json() == {"ok": True}
    assert (await workspace_row(world.workspace.id)).plan == "enterprise"
    async with database.sessionmaker() as db:
        entries = (
            await db.scalars(
                select(AuditLog.id).where(
                    AuditLog.entity_id == world.workspace.id,
                    AuditLog.action == "workspace.billing_updated",
                )
            )
        ).all()
    assert len(entries) == 1


async def test_bad_signature_old_timestamp_and_malformed_bodies_are_refused(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    payload = event("checkout.session.completed", checkout_completed(world.workspace.id))
    cases = {
        "wrong secret": signed(payload, secret="whsec_someone_else"),
        "no header": {"Content-Type": "application/json"},
        "garbage header": {"Stripe-Signature": "nonsense", "Content-Type": "application/json"},
        "six minutes old": signed(payload, at=int(time.time()) - 360),
    }
    for name, headers in cases.items():
        answer = await client.post(WEBHOOK, content=payload, headers=headers)
        assert answer.status_code == 400, name
        assert answer.json()["code"] == "INVALID_SIGNATURE", name
    tampered = payload.replace(b'"pro"', b'"enterprise"')
    answer = await client.post(WEBHOOK, content=tampered, headers=signed(payload))
    assert answer.status_code == 400 and answer.json()["code"] == "INVALID_SIGNATURE"
    # correctly signed, but not an event
    for body in (b"{not json", b"[1, 2]", b'{"id": "evt_1", "type": "x"}', b"\xff\xfe"):
        answer = await client.post(WEBHOOK, content=body, headers=signed(body))
        assert answer.status_code == 400, body
        assert set(answer.json()) >= {"error", "code"}
    row = await workspace_row(world.workspace.id)
    assert row.plan == "trial" and row.billing_event_at is None
    # four minutes old is within the tolerance
    fresh = await client.post(
        WEBHOOK, content=payload, headers=signed(payload, at=int(time.time()) - 240)
    )
    assert fresh.status_code == 200


async def test_one_event_delivered_twice_at_once_applies_once(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    payload = event("checkout.session.completed", checkout_completed(world.workspace.id, "team"))
    headers = signed(payload)
    answers = await asyncio.gather(
        *(client.post(WEBHOOK, content=payload, headers=headers) for _ in range(3))
    )
    statuses = sorted(a.status_code for a in answers)
    assert statuses[0] == 200 and set(statuses) <= {200, 409}, [a.text for a in answers]
    async with database.sessionmaker() as db:
        entries = (
            await db.scalars(
                select(AuditLog.id).where(
                    AuditLog.entity_id == world.workspace.id,
                    AuditLog.action == "workspace.billing_updated",
                )
            )
        ).all()
    assert len(entries) == 1
    # each refused delivery's retry is a replay
    again = await client.post(WEBHOOK, content=payload, headers=signed(payload))
    assert again.status_code == 200


async def test_duplicate_deliveries_at_once_are_replays_answered_ok(client) -> None:  # type: ignore[no-untyped-def]
    """docs/billing.md: a duplicate is a replay, ``{ok: true}``, on PostgreSQL too, where the
    deliveries wait on each other's insert of the event id (issue 24 item 12)."""
    world = await make_world()
    payload = event("checkout.session.completed", checkout_completed(world.workspace.id, "team"))
    headers = signed(payload)
    answers = await asyncio.gather(
        *(client.post(WEBHOOK, content=payload, headers=headers) for _ in range(4))
    )
    assert [(a.status_code, a.json()) for a in answers] == [(200, {"ok": True})] * 4
    assert (await workspace_row(world.workspace.id)).plan == "team"
    async with database.sessionmaker() as db:
        entries = (
            await db.scalars(
                select(AuditLog.id).where(
                    AuditLog.entity_id == world.workspace.id,
                    AuditLog.action == "workspace.billing_updated",
                )
            )
        ).all()
    assert len(entries) == 1
